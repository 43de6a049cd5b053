// Package realuse runs, in the real sandbox, a developer's own tools as
// they are installed and used: toolchains under $HOME as their
// installers lay them out, git push over ssh and Go's module caches, a
// commit signed with ssh or gpg, the tools' settings, and binds and homes
// reached through links. Like package e2e it has no code of its own, and
// -short skips it.
package realuse
