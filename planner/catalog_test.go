package planner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultCatalogContents(t *testing.T) {
	c := DefaultCatalog()
	want := []string{"alexnet", "bert", "bert-base", "bert-large", "cifar10", "deepspeech2", "densenet121",
		"efficientnet-b0", "efficientnet-b4", "gnmt", "gnmt_large", "gpt2-large", "gpt2-medium", "gpt2-small", "gpt2-xl",
		"imagenet", "inception_v3", "llama-13b", "llama-65b", "llama-7b", "llama2-13b", "llama2-70b", "llama2-7b",
		"nasnetalarge", "nasnetamobile", "ncf", "resnet101", "resnet18", "resnet50", "resnext101",
		"resnext50", "squeezenet1_0", "vgg16", "vit-b16", "yolov3"}
	if diff := cmp.Diff(want, c.Models()); diff != "" {
		t.Errorf("models mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{128, 512, 1024, 2048, 4096}, c.CurveBatches("cifar10")); diff != "" {
		t.Errorf("cifar10 batches mismatch (-want +got):\n%s", diff)
	}
	vgg, ok := c.Layered("vgg16")
	if !ok {
		t.Fatal("vgg16 missing")
	}
	var params int64
	for _, l := range vgg.Layers {
		params += l.ParamBytes
	}
	// README: vgg16 has 138.4 M fp32 parameters.
	if got := float64(params) / 4; got < 138.3e6 || got > 138.4e6 {
		t.Errorf("vgg16 parameters = %.0f, want 138.36M", got)
	}
}

func TestStepTime(t *testing.T) {
	c := DefaultCatalog()
	tests := []struct {
		name  string
		model string
		batch int
		gpus  int
		want  time.Duration
		ok    bool
	}{
		{"measured point", "cifar10", 2048, 6, 268780 * time.Microsecond, true},
		{"interpolated 5 between 4 and 6", "cifar10", 2048, 5, 331620 * time.Microsecond, true},
		{"one gpu", "imagenet", 6400, 1, 29515670 * time.Microsecond, true},
		{"beyond 64", "cifar10", 2048, 65, 0, false},
		{"unknown batch", "cifar10", 999, 4, 0, false},
		{"layered model has no curve", "resnet50", 64, 4, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := c.StepTime(tt.model, tt.batch, tt.gpus)
			if ok != tt.ok || (got-tt.want).Abs() > time.Microsecond {
				t.Errorf("StepTime(%s, %d, %d) = %v, %v; want %v, %v", tt.model, tt.batch, tt.gpus, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// modelEntry matches one model of pipedreamModels in gofmt'ed generated code.
var modelEntry = regexp.MustCompile(`(?m)^\t\{Name: "([^"]+)".*\n(?:\t\t.*\n)*\t\}\},\n`)

// TestCatalogGenerated runs gencatalog on the inputs kept in the repository
// (the complete Pollux scaling curves, sim/testdata/pollux_scaling.csv, and
// five whole models of the PipeDream profiles,
// testdata/pipedream_layer_profiles_subset.csv) and checks that the
// committed catalog_gen.go holds exactly what it generates: the same header,
// the same curves, and each of the five models verbatim. The other nine
// PipeDream models need the full profile file (not in the repository); see
// docs/development.md for regenerating the whole file.
func TestCatalogGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "catalog_gen.go")
	cmd := exec.Command("go", "run", "../scripts/gencatalog",
		"-pipedream", filepath.Join("testdata", "pipedream_layer_profiles_subset.csv"),
		"-pollux", filepath.Join("..", "sim", "testdata", "pollux_scaling.csv"), "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gencatalog: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("catalog_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	const curves = "// polluxCurves"
	gotModels, gotCurves, ok1 := bytes.Cut(got, []byte(curves))
	wantModels, wantCurves, ok2 := bytes.Cut(want, []byte(curves))
	if !ok1 || !ok2 {
		t.Fatalf("no %q in the generated (%t) or the committed (%t) file", curves, ok1, ok2)
	}
	if !bytes.Equal(gotCurves, wantCurves) {
		t.Error("the Pollux curves in catalog_gen.go differ from what gencatalog generates: run go generate ./planner (docs/development.md)")
	}
	const models = "var pipedreamModels"
	gotHead, gotModels, _ := bytes.Cut(gotModels, []byte(models))
	wantHead, _, _ := bytes.Cut(wantModels, []byte(models))
	if diff := cmp.Diff(string(wantHead), string(gotHead)); diff != "" {
		t.Errorf("header of catalog_gen.go differs from what gencatalog generates (-committed +generated):\n%s", diff)
	}
	var names []string
	for _, m := range modelEntry.FindAllSubmatch(gotModels, -1) {
		names = append(names, string(m[1]))
		if !bytes.Contains(want, m[0]) {
			t.Errorf("model %s in catalog_gen.go differs from what gencatalog generates: run go generate ./planner", m[1])
		}
	}
	wantNames := []string{"alexnet", "gnmt", "resnet18", "squeezenet1_0", "vgg16"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("models generated from the subset (-want +got):\n%s", diff)
	}
}
