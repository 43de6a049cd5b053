// Package evalrun is claudebox --eval: runs of claude -p that each start
// from the same empty state (a fresh sandbox, a copy of the project, a
// generated ~/.claude holding only the skills under test), each leaving a
// folder with what happened: the stream, Claude Code's own session files,
// what the run wrote, and its metrics.
package evalrun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/proxy"
)

// Options are what the command line asks of an eval.
type Options struct {
	Out        string
	Prompt     string
	PromptFile string
	// Skills are directories, each with a SKILL.md, staged in the
	// workspace's .claude/skills under their own name.
	Skills   []string
	Fixtures string
	Repeat   int
	Jobs     int
	Model    string
	Claude   string
	// Network is nil for the default: filtered, the API only.
	Network    *string
	AllowHosts []string
	// Args are more of claude's arguments (--allowedTools …), put before
	// the prompt.
	Args []string
	// Version is claudebox's own, recorded in each run's metrics.
	Version string
}

// checked is an eval's options read and checked: what every run needs.
type checked struct {
	Options
	prompt  string
	digest  string
	network string
	allow   []proxy.Rule
	skills  []skill
	// outDir holds Out open: each run's folder is made beneath it.
	outDir *os.File
}

// skill is a --skill directory and the name it is staged under.
type skill struct {
	dir, name string
}

// usage is the hint for a command line that lacks what an eval needs.
const usage = "claudebox --eval --out DIR --prompt TEXT (or --prompt-file FILE) [--skill DIR]…"

// check reads and checks everything an eval's runs need before any of
// them creates anything.
func check(o Options) (checked, error) {
	c := checked{Options: o, network: config.NetworkFiltered}
	switch {
	case o.Out == "":
		return c, hint.Errorf(usage, "--eval needs --out DIR, where each run leaves its folder")
	case o.Prompt == "" && o.PromptFile == "":
		return c, hint.Errorf(usage, "--eval needs a prompt: --prompt TEXT or --prompt-file FILE")
	case o.Prompt != "" && o.PromptFile != "":
		return c, hint.Errorf(usage, "--prompt and --prompt-file cannot be used together")
	case o.Repeat < 1:
		return c, hint.Errorf("claudebox --eval --repeat 10 …", "--repeat must be at least 1")
	case o.Jobs < 1:
		return c, hint.Errorf("claudebox --eval --jobs 2 …", "--jobs must be at least 1")
	}
	c.prompt = o.Prompt
	if o.PromptFile != "" {
		b, err := os.ReadFile(o.PromptFile)
		if err != nil {
			return c, hint.Errorf("name a readable file with --prompt-file", "cannot read the prompt file %s: %v", o.PromptFile, errors.Unwrap(err))
		}
		if len(b) == 0 {
			return c, hint.Errorf("write the prompt into "+o.PromptFile, "the prompt file %s is empty", o.PromptFile)
		}
		c.prompt = string(b)
	}
	sum := sha256.Sum256([]byte(c.prompt))
	c.digest = "sha256:" + hex.EncodeToString(sum[:])
	for _, d := range o.Skills {
		s, err := checkSkill(d)
		if err != nil {
			return c, err
		}
		if slices.ContainsFunc(c.skills, func(o skill) bool { return o.name == s.name }) {
			return c, hint.Errorf("give each skill a directory of its own name", "two --skill directories are named %s", printable.Escape(s.name))
		}
		c.skills = append(c.skills, s)
	}
	if o.Fixtures != "" {
		if fi, err := os.Stat(o.Fixtures); err != nil || !fi.IsDir() {
			return c, hint.Errorf("name a directory with --fixtures; it is copied into the workspace's fixtures/", "--fixtures %s is not a directory", o.Fixtures)
		}
	}
	if o.Network != nil {
		if !slices.Contains([]string{config.NetworkFiltered, config.NetworkHost, config.NetworkNone}, *o.Network) {
			return c, hint.Errorf("--network filtered (the default: the API and --allow-host), host or none", "--network %s is not a network", printable.Excerpt(*o.Network))
		}
		c.network = *o.Network
	}
	for _, h := range o.AllowHosts {
		r, err := proxy.ParseRule(h)
		if err != nil {
			return c, hint.Errorf("write host, *.domain or an IP address, each with an optional :port: github.com, *.example.com, 127.0.0.1:8080", "--allow-host %s: %v", printable.Excerpt(h), err)
		}
		c.allow = append(c.allow, r)
	}
	if len(c.allow) > 0 && c.network != config.NetworkFiltered {
		return c, hint.Errorf("drop --allow-host, or use the filtered network", "--allow-host goes with the filtered network")
	}
	return c, nil
}

// checkSkill checks that dir is a skill: a directory with a SKILL.md.
func checkSkill(dir string) (skill, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return skill{}, hint.Errorf("name a skill's directory with --skill (the one holding SKILL.md)", "--skill %s is not a directory", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return skill{}, err
	}
	md, err := os.Stat(filepath.Join(dir, "SKILL.md"))
	if errors.Is(err, fs.ErrNotExist) || err == nil && !md.Mode().IsRegular() {
		return skill{}, hint.Errorf("a skill is a directory with a SKILL.md file: name that directory", "--skill %s has no SKILL.md", dir)
	}
	if err != nil {
		return skill{}, hint.Errorf("make it readable", "--skill %s: %v", dir, err)
	}
	return skill{dir: abs, name: filepath.Base(abs)}, nil
}
