// Package inputerr is the one error type for input the user must fix — a
// flag, a configuration key, a hint, a file, a trace, a state an admin must
// repair first — on which the CLI exits with status 2 (issue 33: nine
// packages each had their own copy). Each package's name for it (for
// example report.InputError) is an alias of Error.
package inputerr

// Error is input the user must fix: the CLI exits with status 2 and prints
// Err, which names the field and the fix.
type Error struct{ Err error }

func (e Error) Error() string { return e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }

// ExitCode is the CLI's exit status for input it refuses.
func (e Error) ExitCode() int { return 2 }

// New wraps err as input the user must fix (nil stays nil).
func New(err error) error {
	if err == nil {
		return nil
	}
	return Error{err}
}
