// Package hint is claudebox's one error voice: an error, and a line telling
// the user what to do about it. The commands and the session speak it; the
// packages below them return plain or typed errors, which the session gives
// a hint where it knows the remedy.
package hint

import (
	"errors"
	"fmt"
)

// Error is an error with a line telling the user how to fix it.
type Error struct {
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Errorf formats an error as fmt.Errorf does (%w wraps) and gives it hint.
func Errorf(hint, format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Hint: hint}
}

// Of returns the hint err carries, or "".
func Of(err error) string {
	var h *Error
	if errors.As(err, &h) {
		return h.Hint
	}
	return ""
}
