package decide_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/strata-hpc/strata/"

// TestImportDirection holds the package layering of issue 25: nothing
// outside slurm/ imports a slurm/... package (tests may use the test
// cluster harness, slurm/slurmtest), and nothing on the planner's side
// (planner/..., decide) imports slurm or cmd.
func TestImportDirection(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || n == "out" || n == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		isTest := strings.HasSuffix(path, "_test.go")
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			pkg := strings.TrimPrefix(p, module)
			plannerSide := strings.HasPrefix(rel, "planner/") || strings.HasPrefix(rel, "decide/") || strings.HasPrefix(rel, "sim/")
			switch {
			case plannerSide && !isTest && (pkg == "slurm" || strings.HasPrefix(pkg, "slurm/") || strings.HasPrefix(pkg, "cmd/")):
				t.Errorf("%s imports %s: the planner's side must not import slurm or cmd", rel, pkg)
			case strings.HasPrefix(rel, "planner/") && !isTest && (pkg == "decide" || pkg == "sim" || strings.HasPrefix(pkg, "sim/")):
				t.Errorf("%s imports %s: nothing under planner/ may import decide or the simulator", rel, pkg)
			case strings.HasPrefix(pkg, "slurm/") && !strings.HasPrefix(rel, "slurm/") && !(isTest && pkg == "slurm/slurmtest"):
				t.Errorf("%s imports %s: only slurm/ may import slurm's sub-packages", rel, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
