package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// BBDataset is what the burst-buffer rule (SynthBurstBuffer) knows about
// one model of a workload: the data a job of it stages in, the parameters
// whose checkpoint it stages out, and its host memory per GPU worker. The
// sources of the numbers are in docs/evaluation.md § Burst buffers that
// bind.
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

// BBCatalog is one peer system's models with the datasets its code trains
// them on: the same model name means different data in different papers
// (DeepSpeech2 on CMU ARCTIC in Pollux, on LibriSpeech in ElasticFlow).
type BBCatalog struct {
	Name   string
	Models map[string]BBDataset
}

// The datasets shared by several catalogs.
var (
	// ILSVRC2012_img_train.tar + ILSVRC2012_img_val.tar.
	bbImageNet = BBDataset{Dataset: "ImageNet-1k (ILSVRC2012)", InBytes: 147897477120 + 6744924160, Params: 25557032, MemGiB: 24}
	// cifar-10-python.tar.gz, ResNet-18 in its CIFAR variant.
	bbCIFAR10 = BBDataset{Dataset: "CIFAR-10", InBytes: 170498071, Params: 11173962, MemGiB: 8}
)

// imageNetModel is bbImageNet for another network: its parameters.
func imageNetModel(params int64) BBDataset {
	d := bbImageNet
	d.Params = params
	return d
}

// BBCatalogs are the catalogs SynthBurstBuffer knows, in the order "auto"
// tries them.
var BBCatalogs = []BBCatalog{
	{Name: "pollux", Models: map[string]BBDataset{ // Qiao et al., OSDI'21, Table 1
		"imagenet": bbImageNet,
		"cifar10":  bbCIFAR10,
		// VOCtrainval_06-Nov-2007.tar + VOCtest_06-Nov-2007.tar + VOCtrainval_11-May-2012.tar.
		"yolov3": {Dataset: "PASCAL VOC 2007+2012", InBytes: 460032000 + 451020800 + 1999639040, Params: 61949149, MemGiB: 16},
		// train-v1.1.json + dev-v1.1.json + bert-base-uncased pytorch_model.bin.
		"bert": {Dataset: "SQuAD v1.1 + BERT-base weights", InBytes: 30288272 + 4854279 + 440473133, Params: 110000000, MemGiB: 12},
		// An estimate: the archives' sizes are not published.
		"deepspeech2": {Dataset: "CMU ARCTIC (estimate)", InBytes: 1 << 30, Params: 40000000, MemGiB: 16},
		// ml-1m.zip ("size: 6 MB" on the GroupLens page).
		"ncf": {Dataset: "MovieLens 1M", InBytes: 6 << 20, Params: 1000000, MemGiB: 8},
	}},
	{Name: "elasticflow", Models: map[string]BBDataset{ // pkusys/ElasticFlow, elastic-training-executor
		"resnet50":   bbImageNet,
		"vgg16":      imageNetModel(138357544),
		"inception3": imageNetModel(27161264),
		// CoLA (cola_public_1.1.zip, under 1 MB: counted as 1 MiB) + bert-base-uncased pytorch_model.bin.
		"bert": {Dataset: "CoLA + BERT-base weights", InBytes: 1<<20 + 440473133, Params: 110000000, MemGiB: 12},
		// aclImdb_v1.tar.gz ("80 MB") + gpt2 pytorch_model.bin (548 MB).
		"gpt2": {Dataset: "IMDb reviews + GPT-2 weights", InBytes: 80<<20 + 548<<20, Params: 124439808, MemGiB: 16},
		// train-clean-100.tar.gz ("6.3G" on openslr.org/12).
		"deepspeech2": {Dataset: "LibriSpeech train-clean-100", InBytes: 6300 << 20, Params: 40000000, MemGiB: 16},
	}},
	{Name: "gavel", Models: map[string]BBDataset{ // stanford-futuredata/gavel, scheduler/job_table.py
		"resnet-50": bbImageNet,
		"resnet-18": bbCIFAR10,
		// WikiText-2's token files (about 13 MB: counted as 16 MiB); a 2-layer LSTM (assumed 14 M parameters).
		"lm": {Dataset: "WikiText-2", InBytes: 16 << 20, Params: 14000000, MemGiB: 8},
		// Multi30k de-en, preprocessed (a few MB: counted as 16 MiB); assumed 60 M parameters.
		"transformer": {Dataset: "Multi30k", InBytes: 16 << 20, Params: 60000000, MemGiB: 8},
		// ml-20m.zip ("size: 190 MB"); an autoencoder, assumed 24 M parameters.
		"recommendation": {Dataset: "MovieLens 20M", InBytes: 190 << 20, Params: 24000000, MemGiB: 8},
	}},
}

// PickBBCatalog returns the catalog called name, or for "" and "auto" the
// first catalog that knows every model of tr (else the one that knows most
// of its jobs, the first on a tie).
func PickBBCatalog(tr *Trace, name string) (BBCatalog, error) {
	if name != "" && name != "auto" {
		names := make([]string, 0, len(BBCatalogs))
		for _, c := range BBCatalogs {
			if c.Name == name {
				return c, nil
			}
			names = append(names, c.Name)
		}
		return BBCatalog{}, fmt.Errorf("burst-buffer catalog %q: want auto or one of %s", name, strings.Join(names, ", "))
	}
	best, bestN := 0, -1
	for i, c := range BBCatalogs {
		n := 0
		for _, j := range tr.Jobs {
			if _, ok := c.Models[j.Model]; ok {
				n++
			}
		}
		if n == len(tr.Jobs) {
			return c, nil
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return BBCatalogs[best], nil
}

// Unknown lists the models of tr that cat does not know, sorted.
func (cat BBCatalog) Unknown(tr *Trace) []string {
	seen := map[string]bool{}
	var out []string
	for _, j := range tr.Jobs {
		if _, ok := cat.Models[j.Model]; !ok && !seen[j.Model] {
			seen[j.Model] = true
			out = append(out, j.Model)
		}
	}
	sort.Strings(out)
	return out
}

// bbGranularity rounds every burst-buffer request up, as a pool's
// granularity does (1 GiB here).
const bbGranularity = 1 << 30

// SynthBurstBuffer returns a copy of tr in which every job whose model is
// in cat gets burst-buffer data and host memory by a seeded rule:
//
//   - bb_in_bytes: the dataset (BBDataset InBytes);
//   - bb_out_bytes: the final checkpoint, 12 bytes per parameter;
//   - bb_bytes (the capacity asked for): the dataset × (1 + s) plus three
//     checkpoints, rounded up to the pool's granularity (1 GiB), where the
//     scratch share s (unpacked or preprocessed copies of the data) is
//     drawn uniformly from [0, 0.5];
//   - memory_mib: GPUs × MemGiB × m, m drawn uniformly from [0.75, 1.5].
//
// Draws are taken job by job in trace order from one PCG stream seeded by
// seed, so the result is a pure function of the trace, the catalog and the
// seed. Jobs of other models are copied unchanged.
func SynthBurstBuffer(tr *Trace, seed uint64, cat BBCatalog) *Trace {
	rng := rand.New(rand.NewPCG(seed, 0xb0b5))
	out := &Trace{Jobs: make([]TraceJob, len(tr.Jobs)), Skipped: tr.Skipped, CPUOnly: tr.CPUOnly}
	for i, j := range tr.Jobs {
		scratch, mem := rng.Float64()*0.5, 0.75+rng.Float64()*0.75 // drawn for every job: stable streams
		d, ok := cat.Models[j.Model]
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
