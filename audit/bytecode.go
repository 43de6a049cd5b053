package audit

import (
	"strings"
)

// Python imports a module from the bytecode cached beside it
// (__pycache__/<name>.<tag>.pyc) whenever the cache's header names the
// source's modification time and size, without reading the source, and
// from a lone <name>.pyc in a directory on its path, the script's own
// first, ahead of the standard library's module of that name. Git ignores
// both in nearly every project (__pycache__/, *.py[cod]): a cache the
// session wrote runs its code at the host's next python3 main.py or
// pytest, while git status and git diff show nothing. So every .pyc the
// session made or changed is a finding; Python writes its caches again.
// Inside the sandbox Python keeps its caches out of the project
// (PYTHONPYCACHEPREFIX), so a session writes none but on purpose. Those
// of a virtualenv's site-packages are no finding: nothing there is judged.

// pythonBytecode says whether name is a Python bytecode file.
func pythonBytecode(name string, fold bool) bool {
	if fold {
		name = strings.ToLower(name)
	}
	return strings.HasSuffix(name, ".pyc")
}

// inSitePackages says whether rel lies in a Python installation's
// packages (a virtualenv's site-packages, Debian's dist-packages).
func inSitePackages(rel string) bool {
	for c := range strings.SplitSeq(rel, "/") {
		if c == "site-packages" || c == "dist-packages" {
			return true
		}
	}
	return false
}
