package history

// ratio is the similarity of a and b as Python's difflib.SequenceMatcher
// computes it (without its junk heuristics, which do not apply to job
// names): 2·M / (len(a)+len(b)), where M is the number of characters in
// the matching blocks found by repeatedly taking the longest common
// substring and recursing on both sides. Helios' estimator keeps names
// with a ratio of at least 0.6.
func ratio(a, b string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2 * float64(matches(a, b)) / float64(len(a)+len(b))
}

// atLeast reports whether ratio(a, b) ≥ min, and the ratio when it is,
// skipping the full computation when difflib's cheap upper bounds
// (lengths, then character counts) already fall short.
func atLeast(a, b string, min float64) (float64, bool) {
	t := float64(len(a) + len(b))
	if t == 0 {
		return 1, min <= 1
	}
	if 2*float64(minInt(len(a), len(b)))/t < min {
		return 0, false
	}
	var count [256]int
	for i := 0; i < len(b); i++ {
		count[b[i]]++
	}
	common := 0
	for i := 0; i < len(a); i++ {
		if count[a[i]] > 0 {
			count[a[i]]--
			common++
		}
	}
	if 2*float64(common)/t < min {
		return 0, false
	}
	r := ratio(a, b)
	return r, r >= min
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// matches counts the characters of difflib's matching blocks.
func matches(a, b string) int {
	type span struct{ alo, ahi, blo, bhi int }
	n := 0
	stack := []span{{0, len(a), 0, len(b)}}
	buf := make([]int, 2*(len(b)+1))
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j, k := longest(a, b, s.alo, s.ahi, s.blo, s.bhi, buf)
		if k == 0 {
			continue
		}
		n += k
		if s.alo < i && s.blo < j {
			stack = append(stack, span{s.alo, i, s.blo, j})
		}
		if i+k < s.ahi && j+k < s.bhi {
			stack = append(stack, span{i + k, s.ahi, j + k, s.bhi})
		}
	}
	return n
}

// longest finds the longest common substring of a[alo:ahi] and
// b[blo:bhi], the earliest in a and then in b on ties (as difflib's
// find_longest_match does), returning its starts and length.
func longest(a, b string, alo, ahi, blo, bhi int, buf []int) (int, int, int) {
	bi, bj, bk := alo, blo, 0
	w := bhi - blo + 1
	prev, cur := buf[:w], buf[w:2*w]
	clear(prev)
	clear(cur)
	for i := alo; i < ahi; i++ {
		for j := blo; j < bhi; j++ {
			if a[i] == b[j] {
				k := prev[j-blo] + 1
				cur[j-blo+1] = k
				if k > bk {
					bi, bj, bk = i-k+1, j-k+1, k
				}
			} else {
				cur[j-blo+1] = 0
			}
		}
		prev, cur = cur, prev
	}
	return bi, bj, bk
}
