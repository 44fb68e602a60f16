package secretfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the uid of the account that owns what no one should trust.
const nobody = 65534

// foreign writes a 0600 file that is owned by an account other than the
// one checking it: chowned to nobody when the test runs as root, else
// checked as if the process ran as another uid.
func foreign(t *testing.T) (path string, euid int) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(path, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		return path, 0
	}
	return path, os.Geteuid() + 1
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	if err := os.WriteFile(mine, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("secret"), 0o640); err != nil {
		t.Fatal(err)
	}
	theirs, euid := foreign(t)
	if euid == 0 {
		euid = os.Geteuid()
	}
	tests := []struct {
		name  string
		path  string
		euid  int
		wants []string // "" = accepted
	}{
		{"own 0600 file", mine, os.Geteuid(), nil},
		{"group-readable", open, os.Geteuid(), []string{"slurm token file " + open + " has mode 0640", "chmod 600 " + open}},
		{"0600 but another owner", theirs, euid, []string{"slurm token file " + theirs + " is owned by ", "reads a secret only from a file it or root owns", "run: chown "}},
		{"missing", filepath.Join(dir, "nope"), os.Geteuid(), []string{"slurm token file " + filepath.Join(dir, "nope")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := check("slurm token file", tt.path, tt.euid)
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A file root owns is trusted whoever runs strata: only root could have
// written it.
func TestCheckTrustsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs a root-owned file: run as root")
	}
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := check("slurm token file", path, nobody); err != nil {
		t.Fatalf("root-owned file refused to uid %d: %v", nobody, err)
	}
}

// The message names the owner by name where the account exists.
func TestCheckNamesTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown to nobody")
	}
	path, _ := foreign(t)
	_, err := Check("basic auth file", path)
	if err == nil {
		t.Fatal("a 0600 file owned by nobody was accepted")
	}
	owner, _ := userName(nobody)
	if want := "is owned by " + owner + "; strata runs as root (uid 0)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	t.Log(err)
}
