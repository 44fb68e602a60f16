package sim

import (
	"math"
	"math/rand/v2"
)

// BBDataset is what the burst-buffer rule (SynthBurstBuffer) knows about
// one model of the Pollux workloads: the data a job of it stages in, the
// parameters whose checkpoint it stages out, and its host memory per GPU
// worker. The sources of the numbers are in docs/evaluation.md § Burst
// buffers that bind.
type BBDataset struct {
	Dataset string
	// InBytes is the dataset as distributed (the archives a job reads).
	InBytes int64
	// Params is the model's parameter count (its checkpoint: 4 bytes each
	// for the weights and for each of two optimizer states).
	Params int64
	// MemGiB is the host memory one GPU worker needs (data loaders, the
	// framework, the in-memory part of the dataset): an assumption.
	MemGiB float64
}

// BBDatasets are the models of the Pollux workloads (Qiao et al., OSDI'21,
// Table 1) with their datasets.
var BBDatasets = map[string]BBDataset{
	// ILSVRC2012_img_train.tar + ILSVRC2012_img_val.tar.
	"imagenet": {Dataset: "ImageNet-1k (ILSVRC2012)", InBytes: 147897477120 + 6744924160, Params: 25557032, MemGiB: 24},
	// cifar-10-python.tar.gz.
	"cifar10": {Dataset: "CIFAR-10", InBytes: 170498071, Params: 11173962, MemGiB: 8},
	// VOCtrainval_06-Nov-2007.tar + VOCtest_06-Nov-2007.tar + VOCtrainval_11-May-2012.tar.
	"yolov3": {Dataset: "PASCAL VOC 2007+2012", InBytes: 460032000 + 451020800 + 1999639040, Params: 61949149, MemGiB: 16},
	// train-v1.1.json + dev-v1.1.json + bert-base-uncased pytorch_model.bin.
	"bert": {Dataset: "SQuAD v1.1 + BERT-base weights", InBytes: 30288272 + 4854279 + 440473133, Params: 110000000, MemGiB: 12},
	// An estimate: the archives' sizes are not published.
	"deepspeech2": {Dataset: "CMU ARCTIC (estimate)", InBytes: 1 << 30, Params: 40000000, MemGiB: 16},
	// ml-1m.zip ("size: 6 MB" on the GroupLens page).
	"ncf": {Dataset: "MovieLens 1M", InBytes: 6 << 20, Params: 1000000, MemGiB: 8},
}

// bbGranularity rounds every burst-buffer request up, as a pool's
// granularity does (1 GiB here).
const bbGranularity = 1 << 30

// SynthBurstBuffer returns a copy of tr in which every job whose model is
// in BBDatasets gets burst-buffer data and host memory by a seeded rule:
//
//   - bb_in_bytes: the dataset (BBDatasets InBytes);
//   - bb_out_bytes: the final checkpoint, 12 bytes per parameter;
//   - bb_bytes (the capacity asked for): the dataset × (1 + s) plus three
//     checkpoints, rounded up to the pool's granularity (1 GiB), where the
//     scratch share s (unpacked or preprocessed copies of the data) is
//     drawn uniformly from [0, 0.5];
//   - memory_mib: GPUs × MemGiB × m, m drawn uniformly from [0.75, 1.5].
//
// Draws are taken job by job in trace order from one PCG stream seeded by
// seed, so the result is a pure function of the trace and the seed. Jobs of
// other models are copied unchanged.
func SynthBurstBuffer(tr *Trace, seed uint64) *Trace {
	rng := rand.New(rand.NewPCG(seed, 0xb0b5))
	out := &Trace{Jobs: make([]TraceJob, len(tr.Jobs)), Skipped: tr.Skipped, CPUOnly: tr.CPUOnly}
	for i, j := range tr.Jobs {
		scratch, mem := rng.Float64()*0.5, 0.75+rng.Float64()*0.75 // drawn for every job: stable streams
		d, ok := BBDatasets[j.Model]
		if ok {
			ckpt := 12 * d.Params
			capacity := float64(d.InBytes)*(1+scratch) + 3*float64(ckpt)
			j.BBInBytes, j.BBOutBytes = d.InBytes, ckpt
			j.BBBytes = int64(math.Ceil(capacity/bbGranularity)) * bbGranularity
			j.MemoryMB = int64(math.Ceil(float64(j.GPUs) * d.MemGiB * 1024 * mem))
		}
		if j.Published != nil {
			pub := make(map[string]float64, len(j.Published))
			for k, v := range j.Published {
				pub[k] = v
			}
			j.Published = pub
		}
		out.Jobs[i] = j
	}
	return out
}
