package audit

import (
	"strings"
)

// Python imports a module from the bytecode cached beside it
// (__pycache__/<name>.<tag>.pyc) whenever the cache's header names the
// source's modification time and size, without reading the source, and
// from a lone <name>.pyc or an extension module (<name>.so,
// <name>.<tag>.so, which it tries first) in a directory on its path, the
// script's own first, ahead of the standard library's module of that
// name. Git ignores them in nearly every project (__pycache__/,
// *.py[cod], *.so): one the session wrote runs its code at the host's
// next python3 main.py or pytest, while git status and git diff show
// nothing. So every one the session made or changed is a finding; Python
// writes its caches again, and an extension module built inside is built
// again on the host. Inside the sandbox Python keeps its caches out of
// the project (PYTHONPYCACHEPREFIX), so a session writes none but on
// purpose. Those of a virtualenv's site-packages are judged with their
// package (deps.go).

// pythonModule says whether name is a compiled Python module: bytecode,
// or a shared library named as a module is (not a C library's
// libfoo.so, which no import names, nor a name no import can spell).
func pythonModule(name string, fold bool) bool {
	if fold {
		name = strings.ToLower(name)
	}
	if strings.HasSuffix(name, ".pyc") {
		return true
	}
	module, _, _ := strings.Cut(name, ".")
	return strings.HasSuffix(name, ".so") && identifier(module) && !strings.HasPrefix(module, "lib")
}

// identifier says whether s is an ASCII Python identifier.
func identifier(s string) bool {
	for i, c := range s {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}
