package planner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultCatalogContents(t *testing.T) {
	c := DefaultCatalog()
	want := []string{"alexnet", "bert", "cifar10", "deepspeech2", "densenet121", "gnmt", "gnmt_large", "imagenet",
		"inception_v3", "nasnetalarge", "nasnetamobile", "ncf", "resnet101", "resnet18", "resnet50", "resnext101",
		"resnext50", "squeezenet1_0", "vgg16", "yolov3"}
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

// TestCatalogGenerated regenerates the catalog from the shared CSVs and
// compares it with the committed file.
func TestCatalogGenerated(t *testing.T) {
	traces := filepath.Join("..", "..", "shared", "traces")
	if _, err := os.Stat(traces); err != nil {
		t.Skipf("shared traces not found at %s (they are not part of the repository): %v", traces, err)
	}
	out := filepath.Join(t.TempDir(), "catalog_gen.go")
	cmd := exec.Command("go", "run", "../scripts/gencatalog",
		"-pipedream", filepath.Join(traces, "models", "pipedream_layer_profiles.csv"),
		"-pollux", filepath.Join(traces, "peers", "pollux_scaling.csv"), "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gencatalog: %v\n%s", err, b)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile("catalog_gen.go")
	if !bytes.Equal(got, want) {
		t.Error("catalog_gen.go is stale: run go generate ./planner")
	}
}
