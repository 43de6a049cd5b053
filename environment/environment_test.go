package environment

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

func TestResolve(t *testing.T) {
	environ := []string{"HOME=/h", "PATH=/bin", "SECRET=x", "LC_ALL=C", "ANTHROPIC_API_KEY=k", "GITHUB_TOKEN=t", "MINE=1", "HOSTVAR=h"}
	got, err := Resolve(environ, []string{"MINE", "MINE"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The host's API key is the proxy's to read: it never passes in.
	if want := []string{"HOME", "PATH", "LC_ALL", "MINE"}; !reflect.DeepEqual(got.Names, want) || len(got.From) != 0 {
		t.Fatalf("Environment = %+v, want names %q and nothing from files", got, want)
	}
	for _, bad := range []string{"NOPE", "1X", "A-B=c", "=x", ""} {
		if _, err := Resolve(environ, []string{bad}, nil); err == nil {
			t.Errorf("--env %q accepted", bad)
		}
	}

	// Env files: a later line wins, an unset NAME passes nothing, --env
	// takes a name out of the audit, and an identity token is refused. The
	// API's address and credential never pass in: the user's own reach the
	// proxy, a project's are dropped.
	user := File{Path: "~/.claudebox/env", Own: true, Entries: []Entry{{Name: "TOOL", Value: "1", Set: true}, {Name: "HOSTVAR"}, {Name: "UNSET"}, {Name: "ANTHROPIC_BASE_URL", Value: "https://gateway", Set: true}}}
	project := File{Path: "/p/.claudebox.env", Entries: []Entry{{Name: "TOOL", Value: "2", Set: true}, {Name: "ANTHROPIC_BASE_URL", Value: "https://x", Set: true}, {Name: "MINE", Value: "file", Set: true}}}
	got, err = Resolve(environ, []string{"MINE"}, []File{user, project})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"HOME", "PATH", "LC_ALL", "TOOL", "HOSTVAR", "MINE"}; !reflect.DeepEqual(got.Names, want) {
		t.Errorf("names = %q, want %q", got.Names, want)
	}
	if got.API["ANTHROPIC_BASE_URL"] != "https://gateway" || got.API["ANTHROPIC_API_KEY"] != "k" || len(got.API) != 2 {
		t.Errorf("API = %q, want the host's key and the user's own gateway, not the project's", got.API)
	}
	if got.Values["TOOL"] != "2" || got.From["TOOL"] != "/p/.claudebox.env" || got.From["HOSTVAR"] != "~/.claudebox/env" {
		t.Errorf("values %q from %q", got.Values, got.From)
	}
	if _, ok := got.Values["MINE"]; ok || got.From["MINE"] != "" {
		t.Errorf("--env MINE should take the host's value, unaudited: %q %q", got.Values, got.From)
	}
	if len(got.From) != 2 || got.From["ANTHROPIC_BASE_URL"] != "" {
		t.Errorf("From = %q, want the two names the files pass", got.From)
	}
	// --env NAME=VALUE sets a value, unaudited, over an env file's.
	got, err = Resolve(environ, []string{"TOOL=cli", "NEW=x=y", "ANTHROPIC_API_KEY=cli-key"}, []File{user})
	if err != nil || got.Values["TOOL"] != "cli" || got.Values["NEW"] != "x=y" || got.From["TOOL"] != "" || len(got.From) != 1 ||
		got.API["ANTHROPIC_API_KEY"] != "cli-key" || slices.Contains(got.Names, "ANTHROPIC_API_KEY") {
		t.Errorf("--env NAME=VALUE: %v %+v", err, got)
	}
	token := File{Path: "/p/.claudebox.env", Entries: []Entry{{Name: "GITHUB_TOKEN"}}}
	var identity *IdentityError
	if _, err := Resolve(environ, nil, []File{token}); !errors.As(err, &identity) || identity.Name != "GITHUB_TOKEN" {
		t.Errorf("GITHUB_TOKEN from an env file: %v", err)
	}
	if got, err := Resolve(environ, []string{"GITHUB_TOKEN"}, []File{token}); err != nil || !slices.Contains(got.Names, "GITHUB_TOKEN") {
		t.Errorf("--env GITHUB_TOKEN should pass it: %v %q", err, got.Names)
	}
}

// The toolchain's variables pass by default, unless the value names a
// URL's user (a proxy with credentials); the other variables dropped are
// named, but not the shell's plumbing and not one whose name says it holds
// a credential.
func TestResolveToolchainAndDropped(t *testing.T) {
	env, err := Resolve([]string{
		"GOPRIVATE=example.com/*", "JAVA_HOME=/usr/lib/jvm/17", "KUBECONFIG=/home/u/.kube/config",
		"GOPROXY=https://alice:s3cret@proxy.example.com", "GOSUMDB=sum.golang.org", "HTTPS_PROXY=alice:s3cret@proxy.example.com:3128",
		"MY_SETTING=1", "GITHUB_TOKEN=ghp_x", "DB_PASSWORD=x", "OPENAI_API_KEY=x", "PWD=/x", "XDG_RUNTIME_DIR=/run/user/1", "SHLVL=1",
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"GOPRIVATE", "JAVA_HOME", "KUBECONFIG", "GOSUMDB"} {
		if !slices.Contains(env.Names, n) {
			t.Errorf("%s does not pass: %q", n, env.Names)
		}
	}
	for _, n := range []string{"GOPROXY", "HTTPS_PROXY"} {
		if slices.Contains(env.Names, n) {
			t.Errorf("a %s with credentials passes", n)
		}
	}
	if want := []string{"GOPROXY", "HTTPS_PROXY", "MY_SETTING"}; !slices.Equal(env.Dropped, want) {
		t.Errorf("dropped %q, want %q", env.Dropped, want)
	}
}

// A toolchain's variable or a provider's URL whose value holds a
// credential that names no URL's user (a key in GOFLAGS' -ldflags, a
// token in GOPROXY's path) does not pass by itself: it is named among the
// dropped, and passes named with --env.
func TestResolveToolchainCredential(t *testing.T) {
	environ := []string{
		"GOFLAGS=-ldflags=-X=main.apiKey=sk-ant-api03-abcdefghijklmnop", "GOPROXY=https://goproxy.corp/api/go/token/ghp_abcdefghijklmnop",
		"ANTHROPIC_FOUNDRY_BASE_URL=https://foundry.example/?api_key=abcdefghijklmnopqrstuvwx", "GOFLAGS_OK=1", "GONOSUMDB=corp.example/*",
		"GOSUMDB=sum.corp.example https://dl.cloudsmith.io/Zk3wQp9LmT2vXr7B/acme/go/",
	}
	env, err := Resolve(environ, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"GONOSUMDB"}; !slices.Equal(env.Names, want) {
		t.Errorf("names %q, want %q", env.Names, want)
	}
	if want := []string{"ANTHROPIC_FOUNDRY_BASE_URL", "GOFLAGS", "GOFLAGS_OK", "GOPROXY", "GOSUMDB"}; !slices.Equal(env.Dropped, want) {
		t.Errorf("dropped %q, want %q", env.Dropped, want)
	}
	if env, err := Resolve(environ, []string{"GOFLAGS"}, nil); err != nil || !slices.Contains(env.Names, "GOFLAGS") {
		t.Errorf("--env GOFLAGS should pass it: %v %q", err, env.Names)
	}
}

// Variables pass by exact name, never by how they start: a credential of
// Claude's API under a name that looks like Claude Code's own stays out,
// and the gateway's headers are the proxy's.
func TestResolveByExactName(t *testing.T) {
	env, err := Resolve([]string{
		"ANTHROPIC_MODEL=m", "CLAUDE_CODE_USE_VERTEX=1", "LC_TIME=C", "DISABLE_TELEMETRY=1",
		"ANTHROPIC_ADMIN_KEY=x", "ANTHROPIC_FOUNDRY_API_KEY=x", "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE=x", "LC_TOKEN=x",
		"DISABLE_ANYTHING=1", "ANTHROPIC_CUSTOM_HEADERS=X-Key: v",
		"ANTHROPIC_VERTEX_BASE_URL=https://u:p@vertex.example", "ANTHROPIC_BEDROCK_BASE_URL=https://bedrock.example",
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"LC_TIME", "ANTHROPIC_MODEL", "DISABLE_TELEMETRY", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_BEDROCK_BASE_URL"}; !slices.Equal(env.Names, want) {
		t.Errorf("names %q, want %q", env.Names, want)
	}
	if env.API["ANTHROPIC_CUSTOM_HEADERS"] != "X-Key: v" {
		t.Errorf("the gateway's headers do not reach the proxy: %q", env.API)
	}
	if want := []string{"ANTHROPIC_VERTEX_BASE_URL", "DISABLE_ANYTHING"}; !slices.Equal(env.Dropped, want) {
		t.Errorf("dropped %q, want %q", env.Dropped, want)
	}
}

// Every allowlisted variable's value is judged, not the toolchain's
// alone: an EDITOR with a password on its command line, a model option
// with a key, a token in a PATH entry stay out and are named; a PATH
// whose entry ends in "oauth", before one of 16 path characters, or
// whose Windows folder is "Authy Desktop/…" (WSL's), is a list of paths,
// not a credential given to a name.
func TestResolveAllowlistedCredential(t *testing.T) {
	env, err := Resolve([]string{
		"EDITOR=code --wait --password=hunter2hunter2hunter2", "ANTHROPIC_CUSTOM_MODEL_OPTION=gw?api_key=abcdefghijklmnopqrstu",
		"PATH=/opt/oauth:/home/alice/.local/bin:/usr/bin:/mnt/c/Program Files (x86)/Authy Desktop/resources/app", "LANG=C.UTF-8", "LANGUAGE=en_US:en",
		"KUBECONFIG=/etc/auth:/home/alice/.kube/config-production", "GOPATH=/opt/ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"PATH", "LANG", "LANGUAGE", "KUBECONFIG"}; !slices.Equal(env.Names, want) {
		t.Errorf("names %q, want %q", env.Names, want)
	}
	if want := []string{"ANTHROPIC_CUSTOM_MODEL_OPTION", "EDITOR", "GOPATH"}; !slices.Equal(env.Dropped, want) {
		t.Errorf("dropped %q, want %q", env.Dropped, want)
	}
}
