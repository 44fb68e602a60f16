package trust

// UnreliableFactor is the correction from which a user's jobs no longer
// calibrate the shared (model, GPU type) speed factors.
const UnreliableFactor = 2.0

// Unreliable lists the users whose own record is distrusted, or corrects
// their predictions down by UnreliableFactor or more: their jobs say more
// about their claims than about the model's speed, so the shared
// calibration leaves them out (calib.Config.Exclude). A user whose jobs
// ran longer than predicted, but not so much as to be distrusted, keeps
// their vote: when a model is slower than the catalog says, every honest
// user of it looks like that until the calibration has learned it, and
// leaving them all out kept it from ever learning (issue 32: with a model
// 2.65× slow, the error after 60 runs stayed 165 %). A lying minority
// cannot move the factor: each user has one vote, and the median decides.
func Unreliable(recs []Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		f := r.Claim.Factor
		if r.Claim.Distrust || f > 0 && f <= 1/UnreliableFactor {
			out[r.User] = true
		}
	}
	return out
}
