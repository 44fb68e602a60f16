package web

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"strings"
)

// InputError is invalid input to `strata serve passwd`: the CLI exits with
// status 2.
type InputError = inputerr.Error

// PasswdLine reads a password (the first line of r) and returns the
// basic-auth file line of user with role and Slurm user (see Role; ""
// leaves them out), without its newline. A user name that is empty or
// holds ':' or blanks, an invalid role or Slurm user, and a password
// shorter than 8 characters are an InputError.
func PasswdLine(user, role, slurmUser string, r io.Reader) (string, error) {
	if user == "" || strings.ContainsAny(user, ": \t") {
		return "", InputError{Err: errors.New("serve passwd: give one user name without ':' or spaces")}
	}
	if role == "" && slurmUser != "" {
		role = RoleUser
	}
	if _, err := ParseRole(role, slurmUser); err != nil {
		return "", InputError{Err: fmt.Errorf("serve passwd: %w", err)}
	}
	pw, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("serve passwd: read password: %w", err)
	}
	pw = strings.TrimRight(pw, "\r\n")
	if len(pw) < 8 {
		return "", InputError{Err: errors.New("serve passwd: password shorter than 8 characters")}
	}
	h, err := HashPassword(pw)
	if err != nil {
		return "", err
	}
	line := user + ":" + h
	if role != "" {
		line += ":" + role
	}
	if slurmUser != "" {
		line += ":" + slurmUser
	}
	return line, nil
}
