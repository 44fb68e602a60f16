package trust

// UnreliableFactor is the correction from which a user's jobs no longer
// calibrate the shared (model, GPU type) speed factors.
const UnreliableFactor = 2.0

// Unreliable lists the users whose own record is distrusted or corrects
// their predictions by UnreliableFactor or more (either way): their jobs
// say more about their claims than about the model's speed, so the shared
// calibration leaves them out (calib.Config.Exclude).
func Unreliable(recs []Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		f := r.Claim.Factor
		if r.Claim.Distrust || f >= UnreliableFactor || f > 0 && f <= 1/UnreliableFactor {
			out[r.User] = true
		}
	}
	return out
}
