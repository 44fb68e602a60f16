package scripts_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// traceSums reads traces/SHA256SUMS: file name → checksum.
func traceSums(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../traces/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			t.Fatalf("SHA256SUMS line %q: want CHECKSUM NAME", sc.Text())
		}
		out[fields[1]] = fields[0]
	}
	return out
}

// copyTraces copies the traces of SHA256SUMS found in the repository's
// traces/ (and, for the ones not vendored, in $STRATA_TRACES or
// ../shared/traces) into a new folder; it skips the test when a
// fetched-only trace is nowhere here.
func copyTraces(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	shared := os.Getenv("STRATA_TRACES")
	if shared == "" {
		shared = "../../shared/traces"
	}
	for name := range traceSums(t) {
		b, err := os.ReadFile(filepath.Join("../traces", name))
		if os.IsNotExist(err) {
			b, err = os.ReadFile(filepath.Join(shared, name))
			if os.IsNotExist(err) {
				t.Skipf("%s is neither in traces/ nor in %s (scripts/fetch-traces.sh fetches it)", name, shared)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func verifyTraces(t *testing.T, dir string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("./fetch-traces.sh", "--verify", dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestFetchTracesVerify (issue 35.6): the evaluation's traces pass
// fetch-traces.sh's checksum check; a changed byte or a missing file fails
// it, naming the file and what to do.
func TestFetchTracesVerify(t *testing.T) {
	dir := copyTraces(t)
	if out, err := verifyTraces(t, dir); err != nil {
		t.Fatalf("the published traces fail the check: %v\n%s", err, out)
	}
	changed := filepath.Join(dir, "peers/pollux_workload3.csv")
	b, err := os.ReadFile(changed)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(changed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "peers/itp_cluster05.csv")); err != nil {
		t.Fatal(err)
	}
	out, err := verifyTraces(t, dir)
	if err == nil {
		t.Fatalf("a changed and a missing trace pass the check:\n%s", out)
	}
	for _, want := range []string{
		changed + ": SHA-256 ",
		"missing " + filepath.Join(dir, "peers/itp_cluster05.csv") + " (run scripts/fetch-traces.sh",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the check's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pollux_workload1.csv") {
		t.Errorf("the check names a trace that is fine:\n%s", out)
	}
}

// TestVendoredTracesLicensed (issue 35.6): every trace kept in the
// repository is listed in SHA256SUMS and has that checksum, is under 2 MB, and
// traces/README.md names it.
func TestVendoredTracesLicensed(t *testing.T) {
	sums := traceSums(t)
	readme, err := os.ReadFile("../traces/README.md")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = filepath.WalkDir("../traces", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".csv") || strings.Contains(p, "/.") {
			return err
		}
		name, _ := filepath.Rel("../traces", p)
		n++
		if _, ok := sums[name]; !ok {
			t.Errorf("%s is not in traces/SHA256SUMS", name)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); sums[name] != "" && got != sums[name] {
			t.Errorf("%s: SHA-256 %s, SHA256SUMS says %s", name, got, sums[name])
		}
		if info, err := d.Info(); err != nil || info.Size() > 2<<20 {
			t.Errorf("%s: %v, over 2 MB or unreadable", name, err)
		}
		if !bytes.Contains(readme, []byte(filepath.Base(name))) {
			t.Errorf("traces/README.md does not name %s", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 12 {
		t.Errorf("%d traces in traces/, want the 12 vendored ones", n)
	}
}
