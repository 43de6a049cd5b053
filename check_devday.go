package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
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

// sshSigningKey says why git's SSH signing cannot find the key that
// user.signingkey names inside, and the fix: inside are the agent and the
// public keys of ~/.ssh, never a private key file.
func sshSigningKey(plan mount.Plan, key string) (problem, fix string) {
	if key == "" || strings.HasPrefix(key, "key::") || strings.HasPrefix(key, "ssh-") || strings.HasPrefix(key, "ecdsa-") || strings.HasPrefix(key, "sk-") {
		return "", ""
	}
	path := paths.ExpandHome(key, plan.Home)
	switch {
	case !strings.HasSuffix(path, ".pub"):
		return "user.signingkey names " + key + ", a private key file, which never enters the sandbox: git commit fails inside",
			"git config --global user.signingkey " + key + ".pub (git signs through the agent with the public key)"
	case filepath.Dir(path) != filepath.Join(plan.Home, ".ssh"):
		return "user.signingkey names " + key + ", which is not shown inside (of your keys, only ~/.ssh/*.pub are): git commit fails inside",
			"keep the public key in ~/.ssh and name it there"
	}
	return "", ""
}

// projectGitConfig is git's configuration in the project as git itself
// reads it there: the system's, yours (with what it includes), the
// repository's and the worktree's, in that order. The host's own git reads
// it, with a deadline: the repository's config is the sandbox's to write,
// and git runs nothing of it to list it.
func projectGitConfig(plan mount.Plan) ([]gitconfig.Entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	dir := plan.Project.Checkout
	if dir == "" {
		dir = plan.Home
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "config", "--includes", "--list", "-z")
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }), "HOME="+plan.Home)
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		// No configuration at all lists nothing and exits 1.
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 {
			return nil, nil
		}
		return nil, fmt.Errorf("git config --list in %s: %w", dir, err)
	}
	var entries []gitconfig.Entry
	for _, item := range strings.Split(string(out), "\x00") {
		if item == "" {
			continue
		}
		key, value, ok := strings.Cut(item, "\n")
		entries = append(entries, gitconfig.Entry{Key: key, Value: value, NoValue: !ok})
	}
	return entries, nil
}

// checkSigning says whether commits signed as git's configuration in the
// project asks (commit.gpgsign, tag.gpgsign: yours, the repository's or
// the worktree's) can be signed inside, and with which flag if not: git
// over gpg needs --with-gpg, over SSH (gpg.format=ssh) --with-ssh.
func checkSigning(plan mount.Plan) checkResult {
	entries, err := projectGitConfig(plan)
	if err != nil {
		return checkResult{"signing", "warn", err.Error(), "git config --list --show-origin names the file git cannot read"}
	}
	if !gitconfig.Bool(entries, "commit.gpgsign") && !gitconfig.Bool(entries, "tag.gpgsign") {
		return checkResult{"signing", "ok", "git's configuration in this project does not ask to sign commits or tags", ""}
	}
	switch format := gitconfig.Last(entries, "gpg.format"); {
	case format == "ssh" && plan.SSHAgent:
		if problem, fix := sshSigningKey(plan, gitconfig.Last(entries, "user.signingkey")); problem != "" {
			return checkResult{"signing", "warn", problem, fix}
		}
		return checkResult{"signing", "ok", "commits are signed through your SSH agent (--with-ssh), with your public key read-only", ""}
	case format == "ssh":
		return checkResult{"signing", "warn", "your git configuration signs with SSH (gpg.format=ssh), and the SSH agent is not forwarded: git commit fails inside", "claudebox --with-ssh (or with-ssh = true in config.toml)"}
	case plan.GPGAgent:
		return checkResult{"signing", "ok", "commits are signed through claudebox's filter of your gpg-agent (--with-gpg)", ""}
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
	entries, err := projectGitConfig(plan)
	if err != nil {
		return []checkResult{{"SSH remotes", "warn", err.Error(), "git config --list --show-origin names the file git cannot read"}}
	}
	var ssh, hosts []string
	for _, e := range entries {
		section, rest, _ := strings.Cut(e.Key, ".")
		if section != "remote" || e.NoValue {
			continue
		}
		url, push := strings.HasSuffix(rest, ".url"), strings.HasSuffix(rest, ".pushurl")
		if !url && !push {
			continue
		}
		// As git does: the longest insteadOf (for a push URL,
		// pushInsteadOf first) that the URL starts with is replaced.
		target := rewriteURL(entries, e.Value, push)
		if overSSH(target) {
			ssh = append(ssh, strings.TrimSuffix(strings.TrimSuffix(rest, ".url"), ".pushurl"))
			if hp := sshHostPort(target); hp != "" && hp != "github.com:22" {
				hosts = append(hosts, hp)
			}
		}
	}
	if len(ssh) == 0 {
		return nil
	}
	slices.Sort(ssh)
	ssh = slices.Compact(ssh)
	slices.Sort(hosts)
	hosts = slices.Compact(hosts)
	remotes := "the remotes " + strings.Join(ssh, ", ") + " are reached over SSH"
	switch {
	case !plan.SSHAgent:
		return []checkResult{{"SSH remotes", "warn", remotes + ", and your SSH agent is not forwarded: fetch and push fail inside", "claudebox --with-ssh"}}
	case plan.Relay != nil && len(hosts) > 0:
		return []checkResult{{"SSH remotes", "ok", remotes + ", through your SSH agent (--with-ssh) and the proxy, to hosts allowed on their SSH port (github.com:22 by default), here " + strings.Join(hosts, ", "), "unless allowed already: claudebox --allow-host " + strings.Join(hosts, " --allow-host ")}}
	case plan.Relay != nil:
		return []checkResult{{"SSH remotes", "ok", remotes + ", through your SSH agent (--with-ssh) and the proxy, to hosts allowed on their SSH port (github.com:22 by default; another: --allow-host HOST:22)", ""}}
	case !plan.Network:
		return []checkResult{{"SSH remotes", "warn", remotes + ", and the sandbox has no network", "drop --network=none"}}
	}
	return []checkResult{{"SSH remotes", "ok", remotes + ", through your SSH agent (--with-ssh)", ""}}
}

// rewriteURL is url as git rewrites it by url.<base>.insteadOf (and, for a
// push URL, pushInsteadOf, which wins): the base of the longest prefix.
func rewriteURL(entries []gitconfig.Entry, url string, push bool) string {
	best := func(kind string) (string, bool) {
		base, prefix := "", ""
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Key, "url.")
			b, isKind := strings.CutSuffix(rest, "."+kind)
			if ok && isKind && !e.NoValue && strings.HasPrefix(url, e.Value) && len(e.Value) > len(prefix) {
				base, prefix = b, e.Value
			}
		}
		return base + strings.TrimPrefix(url, prefix), prefix != ""
	}
	if push {
		if u, ok := best("pushinsteadof"); ok {
			return u
		}
	}
	u, _ := best("insteadof")
	return u
}

// sshHostPort is the host and port git's SSH connects to for url: ssh://
// with its port (22 without), or the scp-like host:path on 22.
func sshHostPort(url string) string {
	for _, scheme := range []string{"ssh://", "git+ssh://", "ssh+git://"} {
		if rest, ok := strings.CutPrefix(url, scheme); ok {
			authority, _, _ := strings.Cut(rest, "/")
			if i := strings.LastIndexByte(authority, '@'); i >= 0 {
				authority = authority[i+1:]
			}
			if host, port, err := net.SplitHostPort(authority); err == nil {
				return net.JoinHostPort(host, port)
			}
			return net.JoinHostPort(strings.Trim(authority, "[]"), "22")
		}
	}
	host, _, _ := strings.Cut(url, ":")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), "22")
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
