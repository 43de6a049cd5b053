package audit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// Mercurial reads a repository's .hg/hgrc (and hgrc-not-shared) at every
// command there, and with it each file a %include line names, where it
// exists (one missing is no error): relative to the including file's
// directory, its includes as well. Its hooks run at the host's next hg
// status, a prompt's too, whatever the included file is called
// (hgrc.local beside it, ../hgrc.team in the project), so each is judged
// as the hgrc is.

// maxHgrcIncludes bounds the files one repository's configuration
// includes that the audit reads.
const maxHgrcIncludes = 100

// isHgrc says whether rel is a Mercurial repository's own configuration.
func isHgrc(rel string) bool {
	name := filepath.Base(rel)
	return (name == "hgrc" || name == "hgrc-not-shared") && filepath.Base(filepath.Dir(rel)) == ".hg"
}

// hgrcIncluded finds what the repositories' configurations the walk met
// (hgrcs) include, at any depth of includes, that the session made or
// changed.
func (w *walker) hgrcIncluded() {
	for _, rel := range w.atMost(w.hgrcs, maxEnvrcs, "what it includes: the audit reads %d Mercurial configurations at most") {
		queue, seen := []string{rel}, map[string]bool{rel: true}
		for len(queue) > 0 {
			f := queue[0]
			queue = queue[1:]
			if f != rel {
				if link, fi, ok := w.linkOnTheWay(f); ok {
					// hg follows it; what it reaches is the
					// session's where the link is.
					if !w.older(fi) {
						w.found(link)
					} else {
						w.includesUnspelled(rel)
					}
					continue
				}
				fi, err := untrusted.Lstat(w.root, f)
				if err != nil || fi.IsDir() {
					continue
				}
				if !w.older(fi) {
					w.found(f)
				}
			}
			b, err := untrusted.ReadFile(w.root, f, maxMakefileSize)
			if err != nil {
				continue
			}
			for _, inc := range hgIncludes(string(b)) {
				if strings.ContainsAny(inc, "$~%") {
					// hg expands the environment's variables and ~:
					// what it names may be any file the session wrote.
					w.includesUnspelled(rel)
					continue
				}
				name, local := w.local(filepath.Dir(f), inc)
				if !local || seen[name] {
					continue
				}
				if len(seen) > maxHgrcIncludes {
					w.notExamined(w.abs(rel), fmt.Sprintf("what it includes: the audit reads %d files it includes at most", maxHgrcIncludes))
					w.includesUnspelled(rel)
					break
				}
				seen[name] = true
				queue = append(queue, name)
			}
		}
	}
}

// hgIncludes are the paths a Mercurial configuration's %include lines
// name, as hg reads them: the directive at a line's start, the path the
// rest of the line, its spaces about it trimmed.
func hgIncludes(text string) []string {
	var paths []string
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, "%include")
		if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		if p := strings.TrimSpace(rest); p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}
