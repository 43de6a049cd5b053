package guardwatch

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
)

// configLimit bounds what is kept of one guarded file: git's configuration
// is small, and the sandbox may have left a huge file in its place.
const configLimit = 1 << 20

// snapshot is what the guarded files held when the session started, and
// the git that reads them at its end, found before the sandbox could plant
// one on the PATH.
type snapshot struct {
	files map[string][]byte
	git   string
}

// takeSnapshot reads each guarded regular file, never following a symlink
// or waiting on a FIFO.
func takeSnapshot(guards []string) snapshot {
	s := snapshot{files: map[string][]byte{}}
	s.git, _ = exec.LookPath("git")
	for _, g := range guards {
		if b, ok := readRegular(g); ok {
			s.files[g] = b
		}
	}
	return s
}

func readRegular(path string) ([]byte, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, configLimit+1))
	return b, err == nil && len(b) <= configLimit
}

// SayChanges tells, for each guarded git configuration file that changed
// while the session ran, what it now sets that runs a command beside what
// it set before.
func (w *Watcher) SayChanges(out io.Writer) {
	if w == nil || w.before.git == "" {
		return
	}
	for path, was := range w.before.files {
		now, ok := readRegular(path)
		if !ok || bytes.Equal(now, was) {
			continue
		}
		after, err := readConfig(w.before.git, now)
		if err != nil {
			continue // not git's configuration
		}
		before, _ := readConfig(w.before.git, was)
		var lines []string
		for key, values := range after {
			if runs(key, values) && !slices.Equal(values, before[key]) {
				lines = append(lines, key+" = "+show(values)+"   (before: "+show(before[key])+")")
			}
		}
		if len(lines) == 0 {
			continue
		}
		slices.Sort(lines)
		printable.Say(out, "claudebox: %s changed while the session ran; what it now sets that runs a command:", mount.Quote(path))
		for _, l := range lines {
			printable.Say(out, "  %s", l)
		}
		printable.Say(out, "hint: if you did not set these yourself, remove them before you run git here (git config --file %s --unset-all KEY)", mount.Quote(path))
	}
}

// readConfig is what git reads from content as a configuration file, by
// key, without following its includes and under a clean environment, so
// that reading it runs nothing.
func readConfig(git string, content []byte) (map[string][]string, error) {
	tmp, err := os.CreateTemp("", "claudebox-config-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(content)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(git, "config", "--no-includes", "--file", tmp.Name(), "--list", "-z")
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=", "LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	config := map[string][]string{}
	for _, entry := range strings.Split(string(out), "\x00") {
		if entry == "" {
			continue
		}
		key, value, _ := strings.Cut(entry, "\n")
		config[key] = append(config[key], value)
	}
	return config, nil
}

// runs says whether git, or a tool reading git's configuration, runs a
// command that key (section.[subsection.]name, as git lists it) names.
func runs(key string, values []string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest[strings.LastIndex(rest, ".")+1:]
	switch section {
	case "core":
		return slices.Contains([]string{"fsmonitor", "hookspath", "pager", "editor", "sshcommand", "askpass", "gitproxy"}, name)
	case "pager", "include":
		return true
	case "alias":
		return slices.ContainsFunc(values, func(v string) bool { return strings.HasPrefix(strings.TrimSpace(v), "!") })
	case "includeif", "credential", "merge", "gpg", "sequence", "web", "remote", "uploadpack", "sendemail":
		return slices.Contains([]string{"path", "helper", "driver", "program", "editor", "browser", "uploadpack", "receivepack", "packobjectshook", "smtpserver", "tocmd", "cccmd"}, name)
	case "filter":
		return slices.Contains([]string{"clean", "smudge", "process"}, name)
	case "diff":
		return slices.Contains([]string{"textconv", "command", "external"}, name)
	case "difftool", "mergetool", "man", "browser":
		return name == "cmd" || name == "path"
	}
	return false
}

// show is a key's values as git's configuration would quote them.
func show(values []string) string {
	if len(values) == 0 {
		return "unset"
	}
	var q []string
	for _, v := range values {
		q = append(q, strconv.Quote(v))
	}
	return strings.Join(q, ", ")
}
