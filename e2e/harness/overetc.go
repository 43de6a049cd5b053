package harness

import "testing"

// OverEtc runs commands as the user in proj with stage laid over /etc, in
// a mount namespace of the test's own: other tests read the host's /etc
// meanwhile, which must not change under them.
func OverEtc(t *testing.T, h *Host, stage, proj string) func(name string, args ...string) string {
	return func(name string, args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, name, args...)
		c.Args = append([]string{
			"unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
			`mount -t overlay overlay -o lowerdir=` + stage + `:/etc /etc && exec "$@"`, "sh",
		}, c.Args...)
		c.Path = "/usr/bin/unshare"
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
}
