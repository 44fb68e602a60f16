package planner

import "fmt"

// Published is one published training throughput: SamplesPerSec samples
// per second (images, sequences) of Model on GPUs GPUs of type GPU at
// Precision, with the exact place it was published.
type Published struct {
	Model         string
	GPU           string
	Precision     Precision
	GPUs          int
	SamplesPerSec float64
	Source        string
	// Batch is the batch per GPU the figure was measured at, where the
	// source gives it (0: not given; the model is calibrated at the job's
	// own batch). A figure measured at a large batch hides the gradient
	// exchange that a job at a small batch pays.
	Batch int
}

// Sources of the published rows (NVIDIA DeepLearningExamples, tables as
// of the commits named; the table names are the READMEs' headings).
const (
	srcRN50A100 = "NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/README.md, " +
		"\"Training performance: NVIDIA DGX A100 (8x A100 80GB)\" (pytorch-21.03, commit 291f0d02)"
	srcRN50V100 = "NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/README.md, " +
		"\"Training performance: NVIDIA DGX-1 16GB (8x V100 16GB)\" (pytorch-21.03, commit 291f0d02)"
	srcConvA100 = "NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets/README.md, " +
		"\"Training performance: NVIDIA DGX A100 (8x A100 80GB)\" (pytorch-20.12, commit 26206dbf)"
	srcConvV100 = "NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets/README.md, " +
		"\"Training performance: NVIDIA DGX-1 16G (8x V100 16GB)\" (pytorch-20.12, commit 26206dbf)"
	srcBERTA100 = "NVIDIA DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md, " +
		"\"Fine-tuning NVIDIA DGX A100 (8x A100 80GB)\", SQuAD, sequence length 384 (pytorch:21.11-py3)"
	srcBERTV100 = "NVIDIA DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md, " +
		"\"Fine-tuning NVIDIA DGX-1 With 32G\", SQuAD, sequence length 384 (pytorch:21.11-py3)"
)

// Lambda's PyTorch training benchmark (github.com/lambdal/deeplearning-benchmark):
// NVIDIA DeepLearningExamples' ResNet-50 v1.5 and BERT-large SQuAD
// (sequence length 384) in an NGC PyTorch container. Its fp16 tables are
// mixed precision (amp); its fp32 tables run TF32 on Ampere and later (the
// NGC container's default: its A100 fp32 ResNet-50, 1066 images/s, is
// DeepLearningExamples' TF32 figure, 938, not fp32's 19.5 TFLOPS).
const (
	lambdaV1 = "Lambda deeplearning-benchmark pytorch/pytorch-train-throughput-%[1]s.csv, column %[2]s, row %[3]q; " +
		"batch %[4]d per GPU from pytorch/pytorch-train-bs-%[1]s.csv (commit 4e11f689, 2024-07-24)"
	lambdaV2 = "Lambda deeplearning-benchmark pytorch/pytorch-train-throughput-v2-%[1]s.csv, column %[2]s, row %[3]q; " +
		"batch %[4]d per GPU from pytorch/scripts/config_v2/config_pytorch_140GB.sh (commit 200af3b7, 2025-12-10)"
	h100x1 = "H100 80GB SXM5"
	h100x8 = "8x H100 80GB SXM5"
	h200x1 = "LambdaBM_ENG04_1xH200_140GB_SXM_h200_v2"
	h200x8 = "LambdaBM_ENG04_8xH200_140GB_SXM_h200_v2"
	a10x1  = "LambdaCloud A10"
)

// lambda is a row of Lambda's tables: file fp16 is amp, fp32 is tf32.
func lambda(form, model, column, row string, p Precision, gpus, batch int, v float64) Published {
	file := map[Precision]string{PrecisionAMP: "fp16", PrecisionTF32: "fp32"}[p]
	gpu := map[string]string{h100x1: "h100", h100x8: "h100", h200x1: "h200", h200x8: "h200", a10x1: "a10"}[row]
	return Published{model, gpu, p, gpus, v, fmt.Sprintf(form, file, column, row, batch), batch}
}

// publishedThroughputs are the published rows. Only rows with a source
// belong here (TestPublishedRowsHaveSources); a (model, GPU, precision)
// without a published figure is left out, never estimated here.
var publishedThroughputs = []Published{
	{"resnet50", "a100", PrecisionTF32, 1, 938, srcRN50A100, 0},
	{"resnet50", "a100", PrecisionTF32, 8, 7248, srcRN50A100, 0},
	{"resnet50", "a100", PrecisionAMP, 1, 2470, srcRN50A100, 0},
	{"resnet50", "a100", PrecisionAMP, 8, 16621, srcRN50A100, 0},
	{"resnet50", "v100", PrecisionFP32, 1, 367, srcRN50V100, 0},
	{"resnet50", "v100", PrecisionFP32, 8, 2855, srcRN50V100, 0},
	{"resnet50", "v100", PrecisionAMP, 1, 1200, srcRN50V100, 0},
	{"resnet50", "v100", PrecisionAMP, 8, 8322, srcRN50V100, 0},
	{"efficientnet-b0", "a100", PrecisionAMP, 8, 14391, srcConvA100, 0},
	{"efficientnet-b0", "a100", PrecisionTF32, 8, 8225, srcConvA100, 0},
	{"efficientnet-b4", "a100", PrecisionAMP, 8, 2341, srcConvA100, 0},
	{"efficientnet-b4", "a100", PrecisionTF32, 8, 1204, srcConvA100, 0},
	{"efficientnet-b0", "v100", PrecisionAMP, 8, 7664, srcConvV100, 0},
	{"efficientnet-b0", "v100", PrecisionFP32, 8, 4571, srcConvV100, 0},
	{"efficientnet-b4", "v100", PrecisionAMP, 8, 1330, srcConvV100, 0},
	{"efficientnet-b4", "v100", PrecisionFP32, 8, 598, srcConvV100, 0},
	{"bert-large", "a100", PrecisionTF32, 1, 61.5, srcBERTA100, 0},
	{"bert-large", "a100", PrecisionTF32, 8, 469.8, srcBERTA100, 0},
	{"bert-large", "a100", PrecisionAMP, 1, 110.5, srcBERTA100, 0},
	{"bert-large", "a100", PrecisionAMP, 8, 846.7, srcBERTA100, 0},
	{"bert-large", "v100", PrecisionFP32, 1, 12, srcBERTV100, 0},
	{"bert-large", "v100", PrecisionFP32, 8, 85.5, srcBERTV100, 0},
	{"bert-large", "v100", PrecisionAMP, 1, 52, srcBERTV100, 0},
	{"bert-large", "v100", PrecisionAMP, 8, 382, srcBERTV100, 0},

	lambda(lambdaV1, "resnet50", "resnet50", h100x1, PrecisionAMP, 1, 1280, 2616),
	lambda(lambdaV1, "resnet50", "resnet50", h100x8, PrecisionAMP, 8, 1280, 20728),
	lambda(lambdaV1, "resnet50", "resnet50", h100x1, PrecisionTF32, 1, 640, 1753),
	lambda(lambdaV1, "resnet50", "resnet50", h100x8, PrecisionTF32, 8, 640, 13856),
	lambda(lambdaV1, "bert-large", "bert_large_squad", h100x1, PrecisionAMP, 1, 112, 301),
	lambda(lambdaV1, "bert-large", "bert_large_squad", h100x8, PrecisionAMP, 8, 112, 2167),
	lambda(lambdaV1, "bert-large", "bert_large_squad", h100x1, PrecisionTF32, 1, 64, 141),
	lambda(lambdaV1, "bert-large", "bert_large_squad", h100x8, PrecisionTF32, 8, 64, 1042),

	lambda(lambdaV2, "resnet50", "resnet50", h200x1, PrecisionAMP, 1, 2560, 3079),
	lambda(lambdaV2, "resnet50", "resnet50", h200x8, PrecisionAMP, 8, 2560, 24479),
	lambda(lambdaV2, "resnet50", "resnet50", h200x1, PrecisionTF32, 1, 1280, 2259),
	lambda(lambdaV2, "resnet50", "resnet50", h200x8, PrecisionTF32, 8, 1280, 17947),
	lambda(lambdaV2, "bert-large", "bert_large_squad", h200x1, PrecisionAMP, 1, 192, 350),
	lambda(lambdaV2, "bert-large", "bert_large_squad", h200x8, PrecisionAMP, 8, 192, 2674),
	lambda(lambdaV2, "bert-large", "bert_large_squad", h200x1, PrecisionTF32, 1, 96, 181),
	lambda(lambdaV2, "bert-large", "bert_large_squad", h200x8, PrecisionTF32, 8, 96, 1360),

	lambda(lambdaV1, "resnet50", "resnet50", a10x1, PrecisionAMP, 1, 448, 638),
	lambda(lambdaV1, "resnet50", "resnet50", a10x1, PrecisionTF32, 1, 224, 349),
	lambda(lambdaV1, "bert-large", "bert_large_squad", a10x1, PrecisionAMP, 1, 28, 42),
	lambda(lambdaV1, "bert-large", "bert_large_squad", a10x1, PrecisionTF32, 1, 12, 19),
}

// ModelInfo is a model the catalog times from its size: parameters and
// training FLOPs per sample (forward + backward ≈ 3 × forward; for
// transformers 6 × parameters × tokens, Kaplan et al. 2020, "Scaling Laws
// for Neural Language Models", §2.1), with the basis of both numbers.
type ModelInfo struct {
	Name   string
	Family string
	Params float64
	FLOPs  float64 // training FLOPs per sample
	Sample string  // what one sample is
	Basis  string
}

// sizedModels are the catalog's models without a layered profile.
var sizedModels = []ModelInfo{
	{"bert-base", "bert", 110e6, 6 * 110e6 * 384, "a sequence of 384 tokens (SQuAD fine-tuning)",
		"110M parameters: Devlin et al. 2019, BERT, §3 (BERT-BASE); FLOPs 6·N·384"},
	{"bert-large", "bert", 340e6, 6 * 340e6 * 384, "a sequence of 384 tokens (SQuAD fine-tuning)",
		"340M parameters: Devlin et al. 2019, BERT, §3 (BERT-LARGE); FLOPs 6·N·384"},
	{"gpt2-small", "gpt2", 124e6, 6 * 124e6 * 1024, "a sequence of 1024 tokens",
		"124M parameters (the released GPT-2 small checkpoint), context 1024: Radford et al. 2019; FLOPs 6·N·1024"},
	{"gpt2-medium", "gpt2", 355e6, 6 * 355e6 * 1024, "a sequence of 1024 tokens",
		"355M parameters (released GPT-2 medium), context 1024; FLOPs 6·N·1024"},
	{"gpt2-large", "gpt2", 774e6, 6 * 774e6 * 1024, "a sequence of 1024 tokens",
		"774M parameters (released GPT-2 large), context 1024; FLOPs 6·N·1024"},
	{"gpt2-xl", "gpt2", 1.5e9, 6 * 1.5e9 * 1024, "a sequence of 1024 tokens",
		"1.5B parameters (released GPT-2 XL), context 1024; FLOPs 6·N·1024"},
	{"llama-7b", "llama", 6.7e9, 6 * 6.7e9 * 2048, "a sequence of 2048 tokens",
		"6.7B parameters, context 2048: Touvron et al. 2023, LLaMA, Table 2; FLOPs 6·N·2048"},
	{"llama-13b", "llama", 13.0e9, 6 * 13.0e9 * 2048, "a sequence of 2048 tokens",
		"13.0B parameters, context 2048: Touvron et al. 2023, LLaMA, Table 2; FLOPs 6·N·2048"},
	{"llama-65b", "llama", 65.2e9, 6 * 65.2e9 * 2048, "a sequence of 2048 tokens",
		"65.2B parameters, context 2048: Touvron et al. 2023, LLaMA, Table 2; FLOPs 6·N·2048"},
	{"llama2-7b", "llama", 7e9, 6 * 7e9 * 4096, "a sequence of 4096 tokens",
		"7B parameters, context 4096: Touvron et al. 2023, Llama 2, Table 1; FLOPs 6·N·4096"},
	{"llama2-13b", "llama", 13e9, 6 * 13e9 * 4096, "a sequence of 4096 tokens",
		"13B parameters, context 4096: Touvron et al. 2023, Llama 2, Table 1; FLOPs 6·N·4096"},
	{"llama2-70b", "llama", 70e9, 6 * 70e9 * 4096, "a sequence of 4096 tokens",
		"70B parameters, context 4096: Touvron et al. 2023, Llama 2, Table 1; FLOPs 6·N·4096"},
	{"vit-b16", "vit", 86e6, 3 * 17.6e9, "an image of 224×224",
		"86M parameters, 17.6 GFLOPs forward at 224²: Touvron et al. 2021, DeiT, Table 1 (ViT-B); training 3× forward"},
	{"efficientnet-b0", "efficientnet", 5.3e6, 3 * 0.39e9, "an image of 224×224",
		"5.3M parameters, 0.39 GFLOPs forward: Tan & Le 2019, EfficientNet, Table 2; training 3× forward"},
	{"efficientnet-b4", "efficientnet", 19e6, 3 * 4.2e9, "an image of 380×380",
		"19M parameters, 4.2 GFLOPs forward: Tan & Le 2019, EfficientNet, Table 2; training 3× forward"},
}

// MFU is the model FLOPs utilisation the catalog assumes for models timed
// from their size on a known GPU, and the published range around it: PaLM
// (Chowdhery et al. 2022, "PaLM: Scaling Language Modeling with
// Pathways", Table 3) reports 21.3 % (GPT-3), 30.2 % (Megatron-Turing NLG),
// 32.5 % (Gopher) and 46.2 % (PaLM 540B).
const (
	MFULow     = 0.213
	MFUTypical = 0.35
	MFUHigh    = 0.462
	mfuSource  = "MFU 21–46 % of peak, PaLM (Chowdhery et al. 2022) Table 3"
)
