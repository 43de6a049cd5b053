package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeLargeTranscript writes a transcript of about size bytes: turns of a
// prompt, a reply streamed in three pieces (text, a Bash call, text), and
// the call's result, some of them large, as real sessions have.
func writeLargeTranscript(tb testing.TB, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	parent := ""
	rec := func(typ string, msg map[string]any, i, j int) {
		uuid := fmt.Sprintf("%08d-0000-4000-8000-%012d", i, j)
		var p any
		if parent != "" {
			p = parent
		}
		enc.Encode(map[string]any{
			"type": typ, "uuid": uuid, "parentUuid": p, "isSidechain": false,
			"timestamp": "2026-11-20T10:00:00.000Z", "sessionId": "s", "version": "2.1.330", "cwd": "/home/alice/code/demo", "message": msg,
		})
		parent = uuid
	}
	output := strings.Repeat("line of output from the command /home/alice/code/demo/src\n", 40)
	big := strings.Repeat("x", 200<<10)
	for i := 0; ; i++ {
		if fi, _ := f.Stat(); fi.Size() >= size {
			return
		}
		mid := fmt.Sprintf("msg_%d", i)
		usage := map[string]int{"input_tokens": 10, "output_tokens": 20}
		rec("user", map[string]any{"role": "user", "content": "please look at the tests and fix the failing one, number " + fmt.Sprint(i)}, i, 0)
		rec("assistant", map[string]any{"id": mid, "role": "assistant", "model": "claude-opus-5-5", "usage": usage, "content": []any{map[string]any{"type": "text", "text": "I will run the tests first. " + strings.Repeat("Some reasoning about the code. ", 10)}}}, i, 1)
		rec("assistant", map[string]any{"id": mid, "role": "assistant", "model": "claude-opus-5-5", "usage": usage, "content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + fmt.Sprint(i), "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "run the tests"}}}}, i, 2)
		result := output
		if i%10 == 0 {
			result = big
		}
		rec("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + fmt.Sprint(i), "content": result}}}, i, 3)
		rec("assistant", map[string]any{"id": mid + "b", "role": "assistant", "model": "claude-opus-5-5", "usage": usage, "content": []any{map[string]any{"type": "text", "text": "The failing test is `TestX`; here is the fix:\n\n```go\nfunc f() {}\n```\n"}}}, i, 4)
	}
}

// BenchmarkExport renders transcripts of 5 and 50 MB: the 50 MB one in
// under a second, with a peak heap that does not grow with the size
// (go test -bench Export ./transcript; peak-heap-MB is sampled every 10
// ms).
func BenchmarkExport(b *testing.B) {
	for _, mb := range []int64{5, 50} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			dir := b.TempDir()
			writeLargeTranscript(b, filepath.Join(dir, "t.jsonl"), mb<<20)
			fi, _ := os.Stat(filepath.Join(dir, "t.jsonl"))
			b.SetBytes(fi.Size())
			runtime.GC()
			var peak uint64
			done := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					peak = max(peak, m.HeapAlloc)
					select {
					case <-done:
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
			}()
			var before, after syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			b.ResetTimer()
			for range b.N {
				if err := Export(io.Discard, dir, "t.jsonl", Options{Detail: Tools, Root: "/home/alice/code/demo", Home: "/home/alice"}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			close(done)
			<-sampled
			// CPU time, which a loaded machine does not inflate as it
			// does the wall clock's ns/op.
			cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}
