// Package secretfile checks a file that holds a secret (a JWT, a database
// password, the web page's password hashes) before Strata reads it: it must
// not be readable or writable by group or others, and it must be owned by the
// user Strata runs as, or by root. A 0600 file owned by another account
// (nobody, a user's) is refused: whoever owns it can replace the secret, or
// read it. Every refusal names the file, what is wrong and the command that
// fixes it.
package secretfile

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
)

// Check stats path, the secret file named by what (e.g. "slurm token
// file", "--database-password-file"), and returns its FileInfo, or an error
// when it cannot be read, when group or others have any access to it, or
// when it is owned by neither the running user nor root.
func Check(what, path string) (os.FileInfo, error) {
	return check(what, path, os.Geteuid())
}

func check(what, path string, euid int) (os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%s %s has mode %04o: a secret must not be readable by others; run: chmod 600 %s",
			what, path, perm, path)
	}
	uid, ok := ownerOf(st)
	if !ok || uid == euid || uid == 0 {
		return st, nil
	}
	me, meArg := userName(euid)
	owner, ownerArg := userName(uid)
	return nil, fmt.Errorf("%s %s is owned by %s; strata runs as %s and reads a secret only from a file "+
		"it or root owns (whoever owns the file can change or read the secret); run: chown %s %s (or run strata as %s)",
		what, path, owner, me, meArg, path, ownerArg)
}

// userName is "name (uid N)" and "name" for a command line, or "uid N"
// and "N" when the account is unknown.
func userName(uid int) (string, string) {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username + " (uid " + id + ")", u.Username
	}
	return "uid " + id, id
}
