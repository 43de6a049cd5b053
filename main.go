// Command claudebox runs Claude Code inside a bubblewrap sandbox with
// per-project conversation history. Use it where you would type claude.
package main

import (
	"os"

	// As the sandbox's first process, claudebox execs its command from
	// this package's initialisation, before most packages initialise.
	_ "github.com/claudebox/claudebox/firstprocess"
)

func main() { os.Exit(run(os.Args[1:])) }
