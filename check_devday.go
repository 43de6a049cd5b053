package main

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/mount"
)

// checkCaches says where the project's tool caches are and how large, and
// which tool's cache is not the project's, and why.
func checkCaches(plan mount.Plan) []checkResult {
	var kept []string
	var dir string
	var lines []checkResult
	for _, c := range plan.Caches {
		if c.Src == "" {
			lines = append(lines, checkResult{"caches", "ok", c.Dest + " is not this project's cache: " + c.Skipped, ""})
			continue
		}
		kept = append(kept, "~/"+c.Path)
		dir = filepath.Dir(c.Src)
	}
	if dir == "" {
		return lines
	}
	head := checkResult{"caches", "ok", dir + " (" + humanBytes(gc.Bytes(dir)) + "), kept between this project's sessions: " + strings.Join(kept, ", "), ""}
	return append([]checkResult{head}, lines...)
}

// checkSigning says whether commits signed as your git configuration asks
// (commit.gpgsign, tag.gpgsign) can be signed inside, and with which
// flag if not: git over gpg needs --with-gpg, over SSH (gpg.format=ssh)
// --with-ssh.
func checkSigning(plan mount.Plan) checkResult {
	// Git reads ~/.config/git/config, then ~/.gitconfig; either may be a
	// link into your dotfiles.
	var entries []gitconfig.Entry
	for _, f := range []string{filepath.Join(plan.Home, ".config", "git", "config"), filepath.Join(plan.Home, ".gitconfig")} {
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		more, err := gitconfig.Read(real)
		if err != nil {
			return checkResult{"signing", "warn", err.Error(), ""}
		}
		entries = append(entries, more...)
	}
	if !gitconfig.Bool(entries, "commit.gpgsign") && !gitconfig.Bool(entries, "tag.gpgsign") {
		return checkResult{"signing", "ok", "your git configuration does not ask to sign commits or tags", ""}
	}
	switch format := gitconfig.Last(entries, "gpg.format"); {
	case format == "ssh" && plan.SSHAgent:
		return checkResult{"signing", "ok", "commits are signed through your SSH agent (--with-ssh), with your public key read-only", ""}
	case format == "ssh":
		return checkResult{"signing", "warn", "your git configuration signs with SSH (gpg.format=ssh), and the SSH agent is not forwarded: git commit fails inside", "claudebox --with-ssh (or with-ssh = true in config.toml)"}
	case plan.GPGAgent:
		return checkResult{"signing", "ok", "commits are signed through your gpg-agent's restricted socket (--with-gpg)", ""}
	}
	return checkResult{"signing", "warn", "your git configuration signs commits with gpg (commit.gpgsign), and gpg-agent is not forwarded: git commit fails inside", "claudebox --with-gpg (or with-gpg = true in config.toml)"}
}

// checkSSHRemotes says whether the project's remotes that git reaches over
// SSH can be reached inside: they need --with-ssh, and a network (the
// filtered one carries git's SSH through the proxy).
func checkSSHRemotes(plan mount.Plan) []checkResult {
	if plan.Project.CommonDir == "" {
		return nil
	}
	entries, err := gitconfig.Read(filepath.Join(plan.Project.CommonDir, "config"))
	if err != nil {
		return nil
	}
	var ssh []string
	for _, e := range entries {
		if section, rest, _ := strings.Cut(e.Key, "."); section == "remote" && (strings.HasSuffix(rest, ".url") || strings.HasSuffix(rest, ".pushurl")) && overSSH(e.Value) {
			ssh = append(ssh, strings.TrimSuffix(strings.TrimSuffix(rest, ".url"), ".pushurl"))
		}
	}
	if len(ssh) == 0 {
		return nil
	}
	slices.Sort(ssh)
	ssh = slices.Compact(ssh)
	remotes := "the remotes " + strings.Join(ssh, ", ") + " are reached over SSH"
	switch {
	case !plan.SSHAgent:
		return []checkResult{{"SSH remotes", "warn", remotes + ", and your SSH agent is not forwarded: fetch and push fail inside", "claudebox --with-ssh"}}
	case plan.Relay != nil:
		return []checkResult{{"SSH remotes", "ok", remotes + ", through your SSH agent (--with-ssh) and the proxy, to hosts allowed on their SSH port (github.com:22 by default; another: --allow-host HOST:22)", ""}}
	case !plan.Network:
		return []checkResult{{"SSH remotes", "warn", remotes + ", and the sandbox has no network", "drop --network=none"}}
	}
	return []checkResult{{"SSH remotes", "ok", remotes + ", through your SSH agent (--with-ssh)", ""}}
}

// overSSH says whether git reaches url over SSH: ssh:// (or git+ssh://),
// or the scp-like user@host:path.
func overSSH(url string) bool {
	if strings.HasPrefix(url, "ssh://") || strings.HasPrefix(url, "git+ssh://") || strings.HasPrefix(url, "ssh+git://") {
		return true
	}
	colon := strings.Index(url, ":")
	return colon > 0 && !strings.Contains(url[:colon], "/") && !strings.HasPrefix(url[colon:], "://")
}
