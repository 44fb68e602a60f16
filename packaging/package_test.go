package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageInstallsInDebian builds the .deb (`make package`) and runs
// scripts/package-test.sh on it: dpkg -i in a throwaway copy of the test
// bed's Debian trixie chroot, then the checks listed in that script. It
// needs root and the cached chroot (`make test` has both); under -short, or
// without root, it is skipped.
func TestPackageInstallsInDebian(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the .deb and installs it in a Debian chroot: not under -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (chroot): run it as root, or make package-test")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("make", "-s", "package")
	deb := strings.TrimSpace(run("make", "-s", "--no-print-directory", "package-name"))
	t.Log(run("scripts/package-test.sh", deb))
}
