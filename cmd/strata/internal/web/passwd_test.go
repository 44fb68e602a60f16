package web

import (
	"errors"
	"strings"
	"testing"
)

func TestPasswdLine(t *testing.T) {
	tests := []struct {
		name, user, stdin string
		wantErr           string // "" = valid; else an InputError containing it
	}{
		{"line", "alice", "correct horse\n", ""},
		{"CRLF and no newline at EOF", "bob", "battery staple\r\n", ""},
		{"no newline", "carol", "longenough", ""},
		{"no user", "", "longenough\n", "give one user name"},
		{"colon in the name", "a:b", "longenough\n", "give one user name"},
		{"space in the name", "a b", "longenough\n", "give one user name"},
		{"short password", "alice", "short\n", "shorter than 8 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := PasswdLine(tt.user, strings.NewReader(tt.stdin))
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
			user, hash, _ := strings.Cut(line, ":")
			pw := strings.TrimRight(strings.SplitN(tt.stdin, "\n", 2)[0], "\r")
			if user != tt.user || !checkPassword(hash, pw) {
				t.Errorf("line %q does not hold user %q with the password", line, tt.user)
			}
		})
	}
}
