// Package packaging_test checks the systemd units the .deb ships
// (packaging/systemd) with the host's systemd-analyze: each service's
// "exposure" in `systemd-analyze security --offline=yes` is at most
// maxExposure, and `systemd-analyze verify` finds nothing wrong. Both run
// without root and without a running systemd; a host without systemd-analyze
// (or one too old for --offline, before systemd 250) skips them. The chroot
// test (scripts/package-test.sh) repeats them on the installed package with
// Debian trixie's systemd.
package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxExposure is the most `systemd-analyze security` may rate a unit
// (issue 17: 2.0; every unit measures 1.1 with systemd 252 and 257).
const maxExposure = 2.0

var overall = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)

func systemdAnalyze(t *testing.T) string {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (Debian package systemd)")
	}
	if out, _ := exec.Command(sa, "security", "--help").CombinedOutput(); !strings.Contains(string(out), "--offline") {
		t.Skip("systemd-analyze has no --offline (systemd < 250)")
	}
	return sa
}

func units(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("systemd", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no units %s: %v", pattern, err)
	}
	return files
}

func TestUnitExposure(t *testing.T) {
	sa := systemdAnalyze(t)
	for _, unit := range units(t, "*.service") {
		t.Run(filepath.Base(unit), func(t *testing.T) {
			abs, _ := filepath.Abs(unit)
			out, err := exec.Command(sa, "security", "--offline=yes", "--no-pager", abs).CombinedOutput()
			if err != nil {
				t.Fatalf("systemd-analyze security: %v\n%s", err, out)
			}
			m := overall.FindSubmatch(out)
			if m == nil {
				t.Fatalf("no overall exposure in:\n%s", out)
			}
			score, err := strconv.ParseFloat(string(m[1]), 64)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("exposure %.1f", score)
			if score > maxExposure {
				t.Errorf("exposure %.1f > %.1f:\n%s", score, maxExposure, out)
			}
		})
	}
}

// TestUnitsVerify runs `systemd-analyze verify` on copies of the units whose
// /usr/bin/strata is replaced by an executable that exists here (verify
// checks that ExecStart is executable); the timers are checked with their
// services beside them.
func TestUnitsVerify(t *testing.T) {
	sa := systemdAnalyze(t)
	stand, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	dir := t.TempDir()
	all := append(units(t, "*.service"), units(t, "*.timer")...)
	for _, unit := range all {
		b, err := os.ReadFile(unit)
		if err != nil {
			t.Fatal(err)
		}
		body := strings.ReplaceAll(string(b), "/usr/bin/strata ", stand+" ")
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(unit)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, unit := range all {
		t.Run(filepath.Base(unit), func(t *testing.T) {
			out, err := exec.Command(sa, "verify", "--man=no", filepath.Join(dir, filepath.Base(unit))).CombinedOutput()
			if err != nil || len(strings.TrimSpace(string(out))) > 0 {
				t.Errorf("systemd-analyze verify: %v\n%s", err, out)
			}
		})
	}
}

// TestTimersStartTheirService: each timer has a oneshot service of the same
// name, and that service is not enabled on its own (no [Install]).
func TestTimersStartTheirService(t *testing.T) {
	for _, timer := range units(t, "*.timer") {
		svc := strings.TrimSuffix(timer, ".timer") + ".service"
		b, err := os.ReadFile(svc)
		if err != nil {
			t.Errorf("%s: %v", timer, err)
			continue
		}
		if !strings.Contains(string(b), "Type=oneshot") || strings.Contains(string(b), "[Install]") {
			t.Errorf("%s: want Type=oneshot and no [Install] section", svc)
		}
	}
}
