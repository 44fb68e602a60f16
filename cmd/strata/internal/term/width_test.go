package term

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWidthOfAFileOrPipe: output to a file or a pipe is not a terminal, so
// nothing is cut to a width (issue 26.7: queue truncated when piped).
func TestWidthOfAFileOrPipe(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	type got struct {
		Cols int
		TTY  bool
	}
	for name, file := range map[string]*os.File{"file": f, "pipe": w, "nil": nil} {
		c, ok := Width(file)
		if diff := cmp.Diff(got{0, false}, got{c, ok}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
