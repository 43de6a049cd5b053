package mount

import (
	"slices"
	"testing"
)

// The updater is off inside whatever the host's environment says, and set
// once: which of two values a program reads is its own choice.
func TestEnvironUpdaterOff(t *testing.T) {
	p := Plan{Home: "/h", Env: []string{"HOME", updaterOff}}
	got := p.Environ(func(n string) (string, bool) { return map[string]string{"HOME": "/h", updaterOff: "0"}[n], true })
	if want := []string{updaterOff + "=1", "HOME=/h"}; !slices.Equal(got, want) {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
}

func TestEnviron(t *testing.T) {
	p := Plan{Home: "/h", Env: []string{"HOME", "UNSET", "X"}, SSHAgent: true}
	values := map[string]string{"HOME": "/h", "X": "a=b"}
	got := p.Environ(func(n string) (string, bool) { v, ok := values[n]; return v, ok })
	if want := []string{"DISABLE_AUTOUPDATER=1", "SSH_AUTH_SOCK=" + SSHAgentSocket, "HOME=/h", "X=a=b"}; !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}
