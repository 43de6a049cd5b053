// Command claudebox runs Claude Code inside a bubblewrap sandbox with
// per-project conversation history. Use it where you would type claude.
package main

import "os"

func main() { os.Exit(run(os.Args[1:])) }
