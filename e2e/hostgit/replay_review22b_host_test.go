package hostgit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview22bReflogsPackedRefsScan: the exit audit judges each
// reflog the session wrote by its ref's value, read from packed-refs where
// no loose ref is, and read packed-refs whole again for every one. The
// session writes a packed-refs of 128 MiB of lines and a thousand reflogs
// of one line, each of a ref that is nowhere: the end read 128 GiB and
// the session did not end. Host-side proof: the session ends, and names
// the reflogs.
func TestReplayReview22bReflogsPackedRefsScan(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `set -e
		yes 0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000 | head -c 134217728 > .git/packed-refs
		mkdir -p .git/logs/refs/heads/planted
		id=1111111111111111111111111111111111111111
		for i in $(seq 1000); do
			printf '%s %s t <t@example.com> 1700000000 +0000\tx\n' $id $id > .git/logs/refs/heads/planted/b$i
		done
		echo PLANTED >&2`)
	c.Stderr = &stderr
	done := make(chan error, 1)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		out := stderr.String()
		if err != nil || !strings.Contains(out, "PLANTED") {
			t.Fatalf("session: %v\n%s", err, out)
		}
		if !strings.Contains(out, filepath.Join(proj, ".git", "logs", "refs", "heads", "planted", "b1000")) {
			t.Errorf("the end did not name the reflogs the session wrote:\n%.2000s", out)
		}
	case <-ctx.Done():
		c.Process.Kill()
		<-done
		t.Errorf("the exit audit read packed-refs again for each reflog, and the session did not end:\n%.2000s", stderr.String())
	}
}
