package mount

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/instance"
)

// Probe reads the host facts a plan needs. It only reads.
func Probe(home, stateDir, command string) Host {
	var h Host
	for _, d := range SystemDirs {
		if hp, ok := lstat(d); ok {
			h.System = append(h.System, hp)
		}
	}
	if real, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !underAny(real, SystemDirs) {
		h.ResolvConf = real
	}
	h.SandboxMDOnHost = exists(filepath.Join(home, ".claude", SandboxMDFile))
	h.SandboxLogin = exists(SandboxLoginFile(stateDir))
	h.LoginOnHost = exists(filepath.Join(home, ".claude", ".credentials.json"))
	for _, f := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git")} {
		if exists(f) {
			h.GitConfig = append(h.GitConfig, f)
		}
	}
	h.Command = commandChain(command)
	return h
}

// commandChain follows command's symlinks while they lie outside the system
// directories (the native installer's ~/.local/bin/claude points into
// ~/.local/share/claude/versions, both hidden by the private $HOME), and
// returns the links to recreate and the directory of the real file to bind.
func commandChain(path string) []HostPath {
	var chain []HostPath
	for i := 0; i < 40 && path != "" && !underAny(path, SystemDirs); i++ {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			dir := filepath.Dir(path)
			// An npm package keeps its executable in bin/ beside the rest.
			if filepath.Base(dir) == "bin" && exists(filepath.Join(filepath.Dir(dir), "package.json")) {
				dir = filepath.Dir(dir)
			}
			return append(chain, HostPath{Path: dir})
		}
		target, err := os.Readlink(path)
		if err != nil {
			return nil
		}
		chain = append(chain, HostPath{Path: path, Link: target})
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = filepath.Clean(target)
	}
	return chain
}

func lstat(path string) (HostPath, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return HostPath{}, false
	}
	hp := HostPath{Path: path}
	if fi.Mode()&os.ModeSymlink != 0 {
		if hp.Link, err = os.Readlink(path); err != nil {
			return HostPath{}, false
		}
	}
	return hp, true
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if instance.Within(path, d) {
			return true
		}
	}
	return false
}
