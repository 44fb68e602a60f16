package web

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/db"
)

func TestPasswdLine(t *testing.T) {
	tests := []struct {
		name, user, stdin string
		role, slurmUser   string
		wantErr           string // "" = valid; else an InputError containing it
		wantTail          string // the line after the hash
	}{
		{"line", "alice", "correct horse\n", "", "", "", ""},
		{"CRLF and no newline at EOF", "bob", "battery staple\r\n", "", "", "", ""},
		{"no newline", "carol", "longenough", "", "", "", ""},
		{"user role", "alice", "longenough\n", "user", "", "", ":user"},
		{"mapped user", "alice", "longenough\n", "", "asmith", "", ":user:asmith"},
		{"coordinator", "carol", "longenough\n", "coordinator=nlp,vision", "", "", ":coordinator=nlp,vision"},
		{"admin", "root", "longenough\n", "admin", "", "", ":admin"},
		{"unknown role", "alice", "longenough\n", "boss", "", "want admin, user or coordinator", ""},
		{"coordinator of nothing", "alice", "longenough\n", "coordinator=", "", "names no account", ""},
		{"slurm user with a colon", "alice", "longenough\n", "user", "a:b", "slurm user", ""},
		{"no user", "", "longenough\n", "", "", "give one user name", ""},
		{"colon in the name", "a:b", "longenough\n", "", "", "give one user name", ""},
		{"space in the name", "a b", "longenough\n", "", "", "give one user name", ""},
		{"short password", "alice", "short\n", "", "", "shorter than 8 characters", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := PasswdLine(tt.user, tt.role, tt.slurmUser, strings.NewReader(tt.stdin))
			if tt.wantErr != "" {
				var in InputError
				if !errors.As(err, &in) || in.ExitCode() != 2 || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want an InputError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			user, rest, _ := strings.Cut(line, ":")
			hash, tail, _ := strings.Cut(rest, ":")
			if tail != "" {
				tail = ":" + tail
			}
			pw := strings.TrimRight(strings.SplitN(tt.stdin, "\n", 2)[0], "\r")
			if user != tt.user || !checkPassword(hash, pw) || tail != tt.wantTail {
				t.Errorf("line %q does not hold user %q with the password and %q", line, tt.user, tt.wantTail)
			}
		})
	}
}

// A basic-auth line's role gives its login's scope; a line without one is
// a user's (its own jobs), and Unroled names it.
func TestReadUsersRoles(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tail string
		want       db.Scope
		unroled    []string
		wantErr    string
	}{
		{"no role", "", db.Scope{Limited: true, Users: []string{"amy"}}, []string{"amy"}, ""},
		{"user", ":user", db.Scope{Limited: true, Users: []string{"amy"}}, nil, ""},
		{"mapped user", ":user:asmith", db.Scope{Limited: true, Users: []string{"asmith"}}, nil, ""},
		{"coordinator", ":coordinator=nlp,vision", db.Scope{Limited: true, Users: []string{"amy"}, Accounts: []string{"nlp", "vision"}}, nil, ""},
		{"admin", ":admin", db.Scope{}, nil, ""},
		{"unknown role", ":root", db.Scope{}, nil, "want admin, user or coordinator"},
		{"too many fields", ":user:a:b", db.Scope{}, nil, "want user:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "users")
			if err := os.WriteFile(path, []byte("amy:"+h+tt.tail+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			u, err := ReadUsers(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, u.Roles["amy"].Scope("amy"), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("scope (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.unroled, u.Unroled()); d != "" {
				t.Errorf("unroled (-want +got):\n%s", d)
			}
			if !checkPassword(u.Hashes["amy"], "correct horse") {
				t.Errorf("the hash does not check")
			}
		})
	}
}
