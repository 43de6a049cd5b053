package mount

import (
	"path/filepath"

	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/project"
)

// RemountRO makes an earlier mount read-only, not the mounts inside it.
const RemountRO Kind = "--remount-ro"

// besideProject is the directory holding the checkout, made an empty
// read-only tmpfs inside (the mounts in it stay as they are), so that what
// git worktree add ../sibling or git clone .. ../copy would put beside the
// project fails at once instead of landing in the private tmpfs, lost at
// exit (a worktree's entry left in the host's repository). "" where that
// directory must stay as it is: $HOME, /tmp, an ancestor of either, the
// root, a system directory (read-only already), one inside a git
// directory the sandbox binds (a worktree kept in .git), or one that a
// mount (a bind of the user's, a toolchain) is at or above: mounts lists
// them. A mount made over the tmpfs would leave bwrap nothing to remount.
func (p *Plan) besideProject(project project.Project, mounts ...[]Mount) string {
	dir := filepath.Dir(project.Checkout)
	if dir == "/" || paths.Within(p.Home, dir) || paths.Within("/tmp", dir) || paths.UnderAny(dir, SystemDirs) || paths.UnderAny(dir, project.GitDirs) {
		return ""
	}
	for _, ms := range mounts {
		for _, m := range ms {
			if paths.Within(dir, m.Dest) {
				return ""
			}
		}
	}
	return dir
}
