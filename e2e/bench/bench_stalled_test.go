package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// stallScript opens 256 connections to the proxy (the most it serves at
// once) from inside the sandbox, starts on each a Messages API call of
// 64 MiB with the session's phantom, sends 1 MiB of it and stalls; then
// it says so and waits.
const stallScript = `touch started; sleep 1
for i in $(seq 256); do
	exec {fd}<>/dev/tcp/127.0.0.1/3128
	printf 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: %s\r\nContent-Type: application/json\r\nContent-Length: 67108864\r\n\r\n{"model":"m","messages":[{"role":"user","content":"' "$ANTHROPIC_API_KEY" >&$fd
	head -c 1048576 /dev/zero | tr '\0' a >&$fd
done
touch stalled; sleep 4`

// BenchmarkSupervisorStalledUploads: the supervisor's resident memory
// (MiB) in a real session, with the real bwrap as an unprivileged user,
// before and while the sandbox holds 256 uploads to the API stalled after
// 1 MiB each (stallScript). Bodies held whole grew it by about a MiB an
// upload, up to 64 MiB each.
func BenchmarkSupervisorStalledUploads(b *testing.B) {
	h := harness.NewHost(b)
	api := harness.StartFakeAPI(b, "x")
	proj := filepath.Join(h.Home, "code", "app")
	h.Write(filepath.Join(proj, "x"), "x\n")
	var idle, stalled float64
	for b.Loop() {
		for _, f := range []string{"started", "stalled"} {
			os.Remove(filepath.Join(proj, f))
		}
		c := h.Command(proj, append(api.Env("sk-ant-test-key"), harness.NoResolve), "claudebox", "--shell", "-c", stallScript)
		var out strings.Builder
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		wait := func(name string) {
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(proj, name)); err == nil {
					return
				}
				if time.Now().After(deadline) {
					b.Fatalf("the sandbox never made %s: %s", name, out.String())
				}
			}
		}
		wait("started")
		rss, _ := memoryKB(c.Process.Pid)
		idle = rss / 1024
		wait("stalled")
		time.Sleep(500 * time.Millisecond)
		rss, _ = memoryKB(c.Process.Pid)
		stalled = rss / 1024
		if err := c.Wait(); err != nil {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
	b.ReportMetric(idle, "idle-RSS-MiB")
	b.ReportMetric(stalled, "stalled-RSS-MiB")
}
