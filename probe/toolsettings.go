package probe

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// toolSettings, under $HOME, are tool configuration that builds inside
// read as the host's do: paths, mirrors, module patterns and flags. Each
// crosses as a private copy that rebuild makes of what its tool reads
// there that is known to hold no credential, never the file as written
// (a comment, "# pypi token pypi-AgE…", has no shape to look for); one
// whose copy still may hold a credential is not shown. The files made for
// tokens (~/.npmrc, ~/.pypirc, ~/.cargo/credentials.toml, ~/.netrc) are
// bind.Secrets and stay hidden.
var toolSettings = []settingsFile{
	{".config/go/env", goEnv},
	{".cargo/config.toml", cargoConfig},
	{".cargo/config", cargoConfig},
	{".config/pip/pip.conf", pipConfig},
	{".pip/pip.conf", pipConfig},
	{".config/uv/uv.toml", uvConfig},
}

// settingsFile is a tool's settings file, where it lies, and how its copy
// is rebuilt from what the file holds (ok false: it cannot be read as its
// tool reads it).
type settingsFile struct {
	path    string
	rebuild func([]byte) (content string, ok bool)
}

// goEnvName is a variable go env -w writes: Go's own and its C
// toolchain's. GOAUTH, which names how to authenticate, is not kept.
var goEnvName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(GO[A-Z0-9_]*|CGO_[A-Z0-9_]+|CC|CXX|AR|FC|PKG_CONFIG|GCCGO)$`)
})

// goEnv rebuilds go env -w's file from its NAME=VALUE lines of Go's
// variables.
func goEnv(b []byte) (string, bool) {
	var out strings.Builder
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		name, _, ok := strings.Cut(s.Text(), "=")
		if ok && goEnvName().MatchString(name) && name != "GOAUTH" {
			out.WriteString(s.Text() + "\n")
		}
	}
	return out.String(), s.Err() == nil
}

// cargoTables are the tables and keys of cargo's configuration known to
// hold no credential; a table's keys, where named, are the only ones
// kept (a registry's index, never its token or credential provider).
// Its env (variables for builds, a token among them) and credential
// aliases are not.
var cargoTables = map[string][]string{
	"alias": nil, "build": nil, "cargo-new": nil, "doc": nil, "future-incompat-report": nil, "cache": nil,
	"http": nil, "install": nil, "net": nil, "patch": nil, "profile": nil, "source": nil, "target": nil,
	"term": nil, "paths": nil, "resolver": nil,
	"registry":   {"default"},
	"registries": {"index", "protocol"},
}

// cargoConfig rebuilds cargo's configuration from cargoTables.
func cargoConfig(b []byte) (string, bool) {
	var top map[string]any
	if toml.Unmarshal(b, &top) != nil {
		return "", false
	}
	kept := map[string]any{}
	for key, v := range top {
		keys, known := cargoTables[key]
		switch {
		case !known:
		case key == "registry":
			kept[key] = keysOf(v, keys)
		case key == "registries":
			registries := map[string]any{}
			if t, isTable := v.(map[string]any); isTable {
				for name, r := range t {
					registries[name] = keysOf(r, keys)
				}
			}
			kept[key] = registries
		default:
			kept[key] = v
		}
	}
	out, err := toml.Marshal(kept)
	return string(out), err == nil
}

// keysOf is the table v with only keys; empty when v is not a table.
func keysOf(v any, keys []string) map[string]any {
	kept := map[string]any{}
	if t, isTable := v.(map[string]any); isTable {
		for _, k := range keys {
			if x, ok := t[k]; ok {
				kept[k] = x
			}
		}
	}
	return kept
}

// pipOptions are the options pip reads from its configuration (its
// command line's, by their long names), none of them a credential: an
// index's or a proxy's URL is judged by what it holds.
var pipOptions = map[string]bool{
	"index-url": true, "extra-index-url": true, "no-index": true, "find-links": true, "trusted-host": true,
	"timeout": true, "default-timeout": true, "retries": true, "proxy": true, "cert": true, "cache-dir": true,
	"no-cache-dir": true, "disable-pip-version-check": true, "no-input": true, "require-virtualenv": true,
	"break-system-packages": true, "user": true, "prefer-binary": true, "only-binary": true, "no-binary": true,
	"pre": true, "upgrade-strategy": true, "root-user-action": true, "progress-bar": true, "no-color": true,
	"verbose": true, "quiet": true, "log": true, "exists-action": true, "keyring-provider": true,
	"use-feature": true, "use-deprecated": true, "no-build-isolation": true, "use-pep517": true,
	"no-compile": true, "compile": true, "no-warn-script-location": true, "no-warn-conflicts": true,
	"prefix": true, "target": true, "src": true, "isolated": true, "python": true, "format": true,
	"no-python-version-warning": true, "ignore-installed": true, "no-deps": true, "require-hashes": true,
	"constraint": true, "requirement": true,
}

// pipConfig rebuilds pip's configuration, an INI file, from its sections
// and the options in pipOptions, with their values' continued lines (an
// extra-index-url a line each).
func pipConfig(b []byte) (string, bool) {
	var out strings.Builder
	keep := false
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		line := strings.TrimRight(s.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';':
		case strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]"):
			out.WriteString(trimmed + "\n")
			keep = false
		case line[0] == ' ' || line[0] == '\t':
			if keep {
				out.WriteString("    " + trimmed + "\n")
			}
		default:
			name, value, ok := strings.Cut(trimmed, "=")
			if !ok {
				name, value, ok = strings.Cut(trimmed, ":")
			}
			name = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
			keep = ok && pipOptions[name]
			if keep {
				out.WriteString(name + " = " + strings.TrimSpace(value) + "\n")
			}
		}
	}
	return out.String(), s.Err() == nil
}

// uvSettings are the settings uv reads from uv.toml, none of them a
// credential: an index's URL is judged by what it holds.
var uvSettings = map[string]bool{
	"allow-insecure-host": true, "cache-dir": true, "cache-keys": true, "compile-bytecode": true,
	"concurrent-builds": true, "concurrent-downloads": true, "concurrent-installs": true, "config-settings": true,
	"constraint-dependencies": true, "environments": true, "exclude-newer": true, "extra-index-url": true,
	"find-links": true, "fork-strategy": true, "index": true, "index-strategy": true, "index-url": true,
	"keyring-provider": true, "link-mode": true, "native-tls": true, "no-binary": true, "no-binary-package": true,
	"no-build": true, "no-build-isolation": true, "no-build-isolation-package": true, "no-build-package": true,
	"no-cache": true, "no-index": true, "no-sources": true, "offline": true, "override-dependencies": true,
	"pip": true, "prerelease": true, "preview": true, "python-downloads": true, "python-install-mirror": true,
	"pypy-install-mirror": true, "python-preference": true, "reinstall": true, "reinstall-package": true,
	"required-version": true, "resolution": true, "upgrade": true, "upgrade-package": true, "managed": true,
	"default-groups": true, "dependency-metadata": true,
}

// uvConfig rebuilds uv.toml from uvSettings.
func uvConfig(b []byte) (string, bool) {
	var top map[string]any
	if toml.Unmarshal(b, &top) != nil {
		return "", false
	}
	kept := map[string]any{}
	for key, v := range top {
		if uvSettings[key] {
			kept[key] = v
		}
	}
	out, err := toml.Marshal(kept)
	return string(out), err == nil
}

// settingsCopies are the private copies of toolSettings in home and of
// systemSettings. A file in home that is missing, cannot be read or lies
// in a credential store is not shown; a system's, shown with its
// directory, is covered by its copy, or by an empty file where the copy
// may hold a credential or the file cannot be read, unless the user
// cannot read it either.
func settingsCopies(home string, secrets map[string]bool) []mount.Mount {
	var copies []mount.Mount
	for _, f := range toolSettings {
		path := filepath.Join(home, f.path)
		b, real, err := untrusted.ReadResolved(path, 1<<20)
		if err != nil || bind.InSecret(real, secrets) {
			continue
		}
		if content, ok := settingsCopy(b, f.rebuild); ok {
			copies = append(copies, mount.Mount{Kind: mount.RoBindData, Dest: path, Content: content, Why: "tool settings, a private copy of what is known to hold no credential", Role: mount.HostFiles})
		}
	}
	// What nix.conf includes is read by Nix as nix.conf is, and copied
	// as it is: Determinate Systems' installer has nix.conf include
	// nix.custom.conf, every user's to read, for the user's settings.
	system := slices.Clone(systemSettings)
	nix := map[string]bool{nixConf: true}
	for i := 0; i < len(system); i++ {
		f := system[i]
		b, _, err := untrusted.ReadResolved(f.path, 1<<20)
		if _, lerr := os.Lstat(f.path); lerr != nil || errors.Is(err, fs.ErrPermission) {
			continue
		}
		content, ok := settingsCopy(b, f.rebuild)
		if err != nil || !ok {
			content = ""
		}
		copies = append(copies, mount.Mount{Kind: mount.RoBindData, Dest: f.path, Content: content, Why: "system settings, a private copy of what is known to hold no credential", Role: mount.HostFiles})
		if nix[f.path] && err == nil {
			for _, p := range nixIncludes(f.path, b) {
				if !nix[p] && len(nix) < maxNixIncludes {
					nix[p] = true
					system = append(system, settingsFile{p, nixConfig})
				}
			}
		}
	}
	return copies
}

// nixConf is Nix's system configuration.
const nixConf = "/etc/nix/nix.conf"

// maxNixIncludes bounds the files of Nix's configuration followed
// through its includes.
const maxNixIncludes = 32

// nixIncludes are the files the nix.conf at path, b, includes (include
// and !include, a path relative to its directory) that lie in /etc,
// which is shown: one elsewhere is not.
func nixIncludes(path string, b []byte) []string {
	var included []string
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) != 2 || f[0] != "include" && f[0] != "!include" {
			continue
		}
		p := f[1]
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		if p = filepath.Clean(p); paths.Within(p, "/etc") && p != "/etc" {
			included = append(included, p)
		}
	}
	return included
}

// settingsCopy is the private copy of a tool's settings file b that
// rebuild makes, and whether it may be shown: not when it cannot be
// read as its tool does, or still may hold a credential, as a name, a
// URL's login or a segment of its path says (a registry's token in its
// URL's path: credential.InURLPath), as a string given to Go's linker
// may (GOFLAGS=-ldflags=-X=main.dbPass=…: credential.InLinkerFlags), or as
// a command's text does (cargo's aliases and runners are commands:
// --api-key …, -u ci:…, a webhook's URL).
func settingsCopy(b []byte, rebuild func([]byte) (string, bool)) (string, bool) {
	content, ok := rebuild(b)
	c := []byte(content)
	return content, ok && !isCredentialLike(c) && !claudesettings.HasCommandCredential(c) && !credential.InURLPath(c) && !credential.InLinkerFlags(c) && !isGitSecretText(c)
}

// npmOptions are the options npm reads from an npmrc known to hold no
// credential (never a registry's _authToken, _auth, _password or
// username, nor a client key); a scope's registry (@corp:registry) is
// one too.
var npmOptions = map[string]bool{
	"registry": true, "strict-ssl": true, "ca": true, "cafile": true, "proxy": true, "https-proxy": true,
	"noproxy": true, "prefix": true, "cache": true, "fund": true, "audit": true, "save": true, "save-exact": true,
	"save-prefix": true, "engine-strict": true, "legacy-peer-deps": true, "strict-peer-deps": true,
	"package-lock": true, "progress": true, "loglevel": true, "update-notifier": true, "script-shell": true,
	"ignore-scripts": true, "fetch-retries": true, "fetch-retry-mintimeout": true, "fetch-retry-maxtimeout": true,
	"fetch-timeout": true, "maxsockets": true, "omit": true, "include": true, "install-strategy": true,
	"lockfile-version": true, "init-author-name": true, "init-author-email": true, "init-author-url": true,
	"init-license": true, "init-version": true, "offline": true, "prefer-offline": true, "prefer-online": true,
	"color": true, "unicode": true, "git-tag-version": true, "tag-version-prefix": true, "globalconfig": true,
}

// npmrc rebuilds an npmrc from its lines of npmOptions.
func npmrc(b []byte) (string, bool) {
	var out strings.Builder
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		key, value, ok := strings.Cut(strings.TrimSpace(s.Text()), "=")
		key = strings.TrimSpace(key)
		name := strings.ToLower(strings.TrimSuffix(key, "[]"))
		if ok && (npmOptions[name] || strings.HasPrefix(name, "@") && strings.HasSuffix(name, ":registry")) {
			out.WriteString(key + "=" + strings.TrimSpace(value) + "\n")
		}
	}
	return out.String(), s.Err() == nil
}

// environmentFile rebuilds /etc/environment (pam_env's NAME=VALUE lines)
// from the variables that pass into the sandbox as the environment's do
// (environment.Allowed): nothing inside reads it, and a user who keeps a
// key there (OPENAI_API_KEY=…) keeps it from the sandbox.
func environmentFile(b []byte) (string, bool) {
	var out strings.Builder
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if ok && environment.Allowed(name, strings.Trim(value, `"'`)) {
			out.WriteString(line + "\n")
		}
	}
	return out.String(), s.Err() == nil
}

// systemSettings are the system's settings files the user's tools read
// (an npm's global npmrc, where npm config set --global keeps a token;
// pip's; /etc/environment), shown with the system directories: each is
// covered by its private copy as toolSettings' are, an empty file where
// that copy may still hold a credential.
var systemSettings = []settingsFile{
	{"/etc/environment", environmentFile},
	{"/etc/pip.conf", pipConfig},
	{"/etc/xdg/pip/pip.conf", pipConfig},
	{"/etc/npmrc", npmrc},
	{"/usr/etc/npmrc", npmrc},
	{"/usr/local/etc/npmrc", npmrc},
	{nixConf, nixConfig},
	{"/etc/php.ini", phpIni},
}

// nixSettings are the settings of Nix's nix.conf known to hold no
// credential: the caches and their keys, the features, the builds'
// bounds and switches. Never access-tokens (a GitHub token for flakes'
// fetches), netrc-file, secret-key-files, impure-env (variables for
// fetches), builders, post-build-hook nor an include.
var nixSettings = map[string]bool{
	"substituters": true, "trusted-substituters": true, "trusted-public-keys": true, "experimental-features": true,
	"max-jobs": true, "cores": true, "sandbox": true, "sandbox-fallback": true, "sandbox-paths": true, "build-users-group": true,
	"keep-outputs": true, "keep-derivations": true, "keep-env-derivations": true, "keep-going": true, "keep-failed": true,
	"auto-optimise-store": true, "trusted-users": true, "allowed-users": true, "warn-dirty": true, "accept-flake-config": true,
	"system-features": true, "platforms": true, "system": true, "builders-use-substitutes": true, "connect-timeout": true,
	"download-attempts": true, "fallback": true, "http-connections": true, "max-free": true, "min-free": true,
	"narinfo-cache-negative-ttl": true, "narinfo-cache-positive-ttl": true, "require-sigs": true, "show-trace": true,
	"max-silent-time": true, "timeout": true, "log-lines": true, "nix-path": true, "use-xdg-base-directories": true,
	"pure-eval": true, "restrict-eval": true, "allow-import-from-derivation": true, "allowed-uris": true, "flake-registry": true,
	"tarball-ttl": true, "substitute": true, "auto-allocate-uids": true, "use-cgroups": true, "max-substitution-jobs": true,
	"eval-cache": true, "http2": true, "compress-build-log": true, "keep-build-log": true, "download-buffer-size": true,
	"bash-prompt": true, "bash-prompt-prefix": true, "bash-prompt-suffix": true, "ssl-cert-file": true,
}

// nixConfig rebuilds a nix.conf from its lines of nixSettings (each also
// as extra-…), as Nix reads them: a # begins a comment anywhere.
func nixConfig(b []byte) (string, bool) {
	var out strings.Builder
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		line, _, _ := strings.Cut(s.Text(), "#")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if ok && nixSettings[strings.TrimPrefix(name, "extra-")] {
			out.WriteString(name + " = " + strings.Join(strings.Fields(value), " ") + "\n")
		}
	}
	return out.String(), s.Err() == nil
}
