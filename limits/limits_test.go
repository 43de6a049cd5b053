package limits

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "64M": 64 << 20, "8G": 8 << 30, "8g": 8 << 30, "2GiB": 2 << 30, "1TB": 1 << 40, " 4K ": 4 << 10} {
		if got, ok := ParseSize(in); !ok || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "lots", "-1G", "1.5G", "G", "9999999999T", "8X"} {
		if got, ok := ParseSize(in); ok {
			t.Errorf("ParseSize(%q) = %d, want refused", in, got)
		}
	}
}

func TestArgsParse(t *testing.T) {
	for _, l := range []Limits{{}, {Tasks: DefaultTasks}, {Tasks: 50, Memory: 64 << 20, CPUs: 2}} {
		args := append(l.Args(), "--", "claude")
		got, rest, err := Parse(args)
		if err != nil || got != l || !slices.Equal(rest, []string{"--", "claude"}) {
			t.Errorf("Parse(%q) = %+v, %q, %v; want %+v", args, got, rest, err, l)
		}
	}
	if _, _, err := Parse([]string{Flag, "1,2", "--"}); err == nil {
		t.Error("Parse took two fields")
	}
}

func TestString(t *testing.T) {
	if s := (Limits{Tasks: 100, Memory: 2 << 30, CPUs: 1}).String(); s != "pids 100, memory 2G per process, cpus 1" {
		t.Error(s)
	}
	if s := (Limits{}).String(); s != "none" {
		t.Error(s)
	}
}

// With a cgroup, the limits set on processes are the bound on tasks only.
func TestArgsWithCgroup(t *testing.T) {
	l := Limits{Tasks: 50, Memory: 64 << 20, CPUs: 2, Cgroup: true}
	if got := l.Args(); !slices.Equal(got, []string{Flag, "50,0,0"}) {
		t.Errorf("%q", got)
	}
	if s := l.String(); s != "pids 50, memory 64M in total, cpus 2" {
		t.Error(s)
	}
}

// Exec runs the command under a memory bound below what the Go runtime
// already holds: the exec needs no memory once the bound is set. (Before,
// the exec's own copies of its arguments killed the runtime.)
func TestExecUnderMemoryBound(t *testing.T) {
	if os.Getenv("LIMITS_EXEC_CHILD") == "1" {
		status, _ := os.ReadFile("/proc/self/status")
		var data int64
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmData:"); ok {
				fmt.Sscanf(strings.TrimSpace(v), "%d kB", &data)
			}
		}
		// Arguments the size of a build's command line, copied in full.
		args := []string{"sh", "-c", `echo "exec ran with $#"`, "sh"}
		for range 20000 {
			args = append(args, strings.Repeat("a", 64))
		}
		err := Exec(Limits{Memory: data << 10}, "/bin/sh", args, nil)
		fmt.Println("exec failed:", err)
		os.Exit(3)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExecUnderMemoryBound$")
	cmd.Env = append(os.Environ(), "LIMITS_EXEC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "exec ran with 20000") {
		t.Errorf("%v:\n%.2000s", err, out)
	}
}
