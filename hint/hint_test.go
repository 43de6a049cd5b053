package hint

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// A hint survives wrapping, and the cause stays reachable through it.
func TestErrorf(t *testing.T) {
	err := fmt.Errorf("launch: %w", Errorf("create it first", "cannot read %s: %w", "x", fs.ErrNotExist))
	if got := err.Error(); got != "launch: cannot read x: file does not exist" {
		t.Errorf("Error() = %q", got)
	}
	if Of(err) != "create it first" {
		t.Errorf("Of = %q", Of(err))
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("the cause is lost")
	}
	if Of(fs.ErrNotExist) != "" {
		t.Error("a plain error has a hint")
	}
}
