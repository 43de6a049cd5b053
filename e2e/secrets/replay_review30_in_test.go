package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30InURLPathToken: a package registry's token written in
// its URL's path, not its login (Cloudsmith's entitlement tokens:
// https://dl.cloudsmith.io/TOKEN/org/repo/go/, as GOPROXY, pip's
// index-url, uv's index), crossed: the one definition of a credential in a
// URL knew a password and a long user only, so GOPROXY in the host's
// environment and the copies of go env -w's file, pip's and uv's settings
// kept it. The attack, from inside: read the environment and the copies.
// Proof: no such token is readable inside (a copy that may hold one is
// not shown, as one with a password in a URL); a registry's URL whose
// path reads as words (api/go/go-virtual) still crosses.
func TestReplayReview30InURLPathToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	tokens := []string{"Zk3wQp9LmT2vXrR30", "8f14e45fceea167aR30", "Yb7nR30Kd2Pq9Wx4"}
	h.Write(filepath.Join(h.Home, ".config", "go", "env"), "GOPROXY=https://dl.cloudsmith.io/"+tokens[1]+"/acme/go/go/,direct\nGOPRIVATE=corp.example.com\n")
	h.Write(filepath.Join(h.Home, ".config", "pip", "pip.conf"), "[global]\nindex-url = https://dl.cloudsmith.io/"+tokens[2]+"/acme/py/python/simple/\nextra-index-url = https://pypi.corp.example.com/repository/python3-v2/simple\ntimeout = 30\n")
	h.Write(filepath.Join(h.Home, ".config", "uv", "uv.toml"), "[[index]]\nurl = \"https://dl.cloudsmith.io/"+tokens[2]+"/acme/py/python/simple/\"\n")
	env := []string{
		"GOPROXY=https://dl.cloudsmith.io/" + tokens[0] + "/acme/go/go/,direct",
		"GONOSUMDB=corp.example.com",
	}
	out := h.Inside(proj, env, "exec 2>&1; env | grep -i '^go'; cat ~/.config/go/env ~/.config/pip/pip.conf ~/.config/uv/uv.toml; true")
	t.Log(out)
	for _, tok := range tokens {
		if strings.Contains(out, tok) {
			t.Errorf("a registry's token in its URL's path, %s, is readable inside", tok)
		}
	}
	if !strings.Contains(out, "GONOSUMDB=corp.example.com") {
		t.Errorf("inside, want GONOSUMDB, known harmless")
	}
	// A URL whose path reads as words crosses.
	out = h.Inside(proj, []string{"GOPROXY=https://goproxy.corp.example.com/api/go/go-virtual,direct"}, "echo GOPROXY=$GOPROXY")
	if !strings.Contains(out, "GOPROXY=https://goproxy.corp.example.com/api/go/go-virtual,direct") {
		t.Errorf("inside, want a registry's URL whose path reads as words:\n%s", out)
	}
}
