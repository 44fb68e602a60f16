package planner

import (
	"slices"
	"strings"
)

// Precision is the arithmetic a job trains in (the precision= hint).
type Precision string

// Precisions: fp32 without tensor cores, tf32 (fp32 storage, tensor-core
// matrix maths, Ampere and later) and amp (16-bit mixed precision: fp16 with
// loss scaling, or bf16; bf16 and fp16 are read as amp).
const (
	PrecisionUnset Precision = ""
	PrecisionFP32  Precision = "fp32"
	PrecisionTF32  Precision = "tf32"
	PrecisionAMP   Precision = "amp"
)

// precisionWords are the precision= values and what they mean.
var precisionWords = map[string]Precision{
	"fp32": PrecisionFP32, "tf32": PrecisionTF32, "amp": PrecisionAMP,
	"bf16": PrecisionAMP, "fp16": PrecisionAMP, "mixed": PrecisionAMP,
}

// PrecisionWords lists the accepted precision= values, sorted.
func PrecisionWords() []string {
	out := make([]string, 0, len(precisionWords))
	for w := range precisionWords {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// GPUSpec is a GPU type Strata knows without site configuration: its dense
// (no 2:4 sparsity) peak TFLOPS per precision from the vendor's datasheet.
// TF32 is 0 where the GPU has no TF32 tensor cores; BF16 tells whether
// 16-bit mixed precision can run in bf16 (Ampere, CDNA2 and later).
type GPUSpec struct {
	Name    string
	Aliases []string
	FP32    float64 // peak TFLOPS, fp32 (vector; MI250X: vector, matrix is 2×)
	TF32    float64
	AMP     float64 // fp16/bf16 tensor (matrix) peak
	BF16    bool
	// MemGBps is the datasheet memory bandwidth (GB/s).
	MemGBps float64
	Source  string
}

// gpuSpecs are the built-in GPU types; [planner] gpu-speed overrides them.
var gpuSpecs = []GPUSpec{
	{Name: "v100", Aliases: []string{"v100s", "tesla-v100"}, FP32: 15.7, AMP: 125,
		MemGBps: 900,
		Source:  "NVIDIA Tesla V100 datasheet (SXM2): 15.7 TFLOPS FP32, 125 TFLOPS tensor; 900 GB/s HBM2"},
	{Name: "t4", FP32: 8.1, AMP: 65,
		MemGBps: 320,
		Source:  "NVIDIA T4 datasheet: 8.1 TFLOPS FP32, 65 TFLOPS FP16/FP32 mixed precision; 320 GB/s GDDR6"},
	{Name: "a100", Aliases: []string{"a100-40gb", "a100-80gb", "a100-sxm4", "a100-pcie"}, FP32: 19.5, TF32: 156, AMP: 312, BF16: true,
		MemGBps: 2039,
		Source:  "NVIDIA A100 datasheet: 19.5 TFLOPS FP32, 156 TF32, 312 BF16/FP16 tensor (dense); 2039 GB/s HBM2e (80GB SXM)"},
	{Name: "a30", FP32: 10.3, TF32: 82, AMP: 165, BF16: true,
		MemGBps: 933,
		Source:  "NVIDIA A30 datasheet: 10.3 TFLOPS FP32, 82 TF32, 165 BF16/FP16 tensor (dense); 933 GB/s HBM2"},
	{Name: "a10", FP32: 31.2, TF32: 62.5, AMP: 125, BF16: true,
		MemGBps: 600,
		Source:  "NVIDIA A10 datasheet: 31.2 TFLOPS FP32, 62.5 TF32, 125 BF16/FP16 tensor (dense; 2× with sparsity); 600 GB/s GDDR6"},
	{Name: "a40", FP32: 37.4, TF32: 74.8, AMP: 149.7, BF16: true,
		MemGBps: 696,
		Source:  "NVIDIA A40 datasheet: 37.4 TFLOPS FP32, 74.8 TF32, 149.7 BF16/FP16 tensor (dense); 696 GB/s GDDR6"},
	{Name: "l4", FP32: 30.3, TF32: 60, AMP: 121, BF16: true,
		MemGBps: 300,
		Source:  "NVIDIA L4 datasheet: 30.3 TFLOPS FP32, 120 TF32 and 242 FP16 with sparsity (dense half); 300 GB/s GDDR6"},
	{Name: "l40s", FP32: 91.6, TF32: 183, AMP: 362, BF16: true,
		MemGBps: 864,
		Source:  "NVIDIA L40S datasheet: 91.6 TFLOPS FP32, 366 TF32 and 733 BF16 with sparsity (dense half); 864 GB/s GDDR6"},
	{Name: "h100", Aliases: []string{"h100-sxm", "h100-80gb", "h100-sxm5"}, FP32: 67, TF32: 494.5, AMP: 989.5, BF16: true,
		MemGBps: 3350,
		Source:  "NVIDIA H100 datasheet (SXM): 67 TFLOPS FP32, 989 TF32 and 1979 BF16 with sparsity (dense half); 3.35 TB/s HBM3"},
	{Name: "h200", Aliases: []string{"h200-sxm", "h200-141gb"}, FP32: 67, TF32: 494.5, AMP: 989.5, BF16: true,
		MemGBps: 4800,
		Source:  "NVIDIA H200 datasheet (SXM): 67 TFLOPS FP32, 989 TF32 and 1979 BF16 with sparsity (dense half); 4.8 TB/s HBM3e"},
	{Name: "mi250x", Aliases: []string{"mi250"}, FP32: 47.9, AMP: 383, BF16: true,
		MemGBps: 3277,
		Source:  "AMD Instinct MI250X datasheet: 47.9 TFLOPS FP32 vector, 383 TFLOPS FP16/BF16 matrix; 3.2768 TB/s HBM2e"},
	{Name: "mi300x", FP32: 163.4, TF32: 653.7, AMP: 1307.4, BF16: true,
		MemGBps: 5300,
		Source:  "AMD Instinct MI300X datasheet: 163.4 TFLOPS FP32, 653.7 TF32, 1307.4 FP16/BF16 matrix (dense); 5.3 TB/s HBM3"},
}

// gresPrefixes are dropped from GRES type names before lookup (Slurm's
// AutoDetect names GPUs such as nvidia_a100-sxm4-80gb).
var gresPrefixes = []string{"nvidia-", "tesla-", "amd-", "instinct-"}

// LookupGPU finds the built-in GPU type of a Slurm GRES type name, case
// insensitive: a100, A100, a100-80gb, nvidia_a100-sxm4-80gb all name a100.
func LookupGPU(gresType string) (GPUSpec, bool) {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(gresType)), "_", "-")
	if t == "" {
		return GPUSpec{}, false
	}
	for _, p := range gresPrefixes {
		t = strings.TrimPrefix(t, p)
	}
	first, _, _ := strings.Cut(t, "-")
	for _, g := range gpuSpecs {
		if t == g.Name || first == g.Name || slices.Contains(g.Aliases, t) {
			return g, true
		}
	}
	return GPUSpec{}, false
}

// GPUTypes lists the built-in GPU type names.
func GPUTypes() []string {
	out := make([]string, len(gpuSpecs))
	for i, g := range gpuSpecs {
		out[i] = g.Name
	}
	return out
}

// DefaultPrecision is the precision a job without precision= is timed in:
// amp on GPUs that run bf16 (Ampere, Hopper, Ada, CDNA2 and later: mixed
// precision is one autocast flag there and every published recipe uses it);
// fp32 on V100 and T4 (fp16 needs loss scaling there, and the catalog's
// own profiles were measured in fp32 on them, so old jobs keep their times).
func (g GPUSpec) DefaultPrecision() Precision {
	if g.BF16 {
		return PrecisionAMP
	}
	return PrecisionFP32
}

// Effective is the precision the GPU really runs p in: tf32 on a GPU
// without TF32 tensor cores runs in fp32.
func (g GPUSpec) Effective(p Precision) Precision {
	switch {
	case p == PrecisionUnset:
		return g.DefaultPrecision()
	case p == PrecisionTF32 && g.TF32 == 0:
		return PrecisionFP32
	}
	return p
}

// Peak is the datasheet peak TFLOPS at precision p (after Effective).
func (g GPUSpec) Peak(p Precision) float64 {
	switch g.Effective(p) {
	case PrecisionTF32:
		return g.TF32
	case PrecisionAMP:
		return g.AMP
	}
	return g.FP32
}
