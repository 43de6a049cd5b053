package mount

import (
	"slices"
	"testing"
)

// The updater is off inside, and Python's caches kept out of the project,
// whatever the host's environment says, and each set once: which of two
// values a program reads is its own choice.
func TestEnvironUpdaterOff(t *testing.T) {
	p := Plan{Home: "/h", Env: []string{"HOME", updaterOff, pycachePrefix}}
	got := p.Environ(func(n string) (string, bool) {
		return map[string]string{"HOME": "/h", updaterOff: "0", pycachePrefix: "/h/p"}[n], true
	})
	if want := []string{updaterOff + "=1", pycachePrefix + "=/tmp/pycache", "HOME=/h"}; !slices.Equal(got, want) {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
}

func TestEnviron(t *testing.T) {
	p := Plan{Home: "/h", Env: []string{"HOME", "UNSET", "X"}, SSHAgent: true}
	values := map[string]string{"HOME": "/h", "X": "a=b"}
	got := p.Environ(func(n string) (string, bool) { v, ok := values[n]; return v, ok })
	if want := []string{"DISABLE_AUTOUPDATER=1", "PYTHONPYCACHEPREFIX=/tmp/pycache", "SSH_AUTH_SOCK=" + SSHAgentSocket, "HOME=/h", "X=a=b"}; !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}
