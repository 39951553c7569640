package mapped

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The fields a mapped block may have, and their JSON types. rank and
// relevanceLevel are not among them: the rank is the position, the level
// comes from the qualityScore and the thresholds. qualityScore neither:
// it comes from score by the declared conversion.
var blockFields = map[string]string{
	"evidenceKey":   "string",
	"docId":         "string",
	"source":        "string",
	"title":         "string",
	"breadcrumb":    "string",
	"category":      "string",
	"chunkIndex":    "integer",
	"excerpt":       "string",
	"score":         "number",
	"denseDistance": "number",
	"fusedScore":    "number",
	"scoreLabel":    "string",
}

// BlockFields lists the fields a response mapping may give a block, sorted.
func BlockFields() []string {
	out := make([]string, 0, len(blockFields))
	for k := range blockFields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// toBlocks turns the values the blocks program yielded into evidence
// blocks: one array of objects, or the objects one by one. The first keep
// are read and the others dropped unread, and counted. An array of more
// than maxOutputs blocks is an error, as are more outputs (program.run).
// A null field is absent. A field of the wrong type or an unknown field is
// an error naming the block, 1-based, and the field.
func (p *Pipeline) toBlocks(out []any, keep int) (_ []contract.EvidenceBlock, dropped int, _ error) {
	items := out
	if len(out) == 1 {
		if arr, ok := out[0].([]any); ok {
			items = arr
		}
	}
	if len(items) > maxOutputs {
		return nil, 0, fmt.Errorf("an array of %d blocks, more than %d: ask the service for .topK of them", len(items), maxOutputs)
	}
	if len(items) > keep {
		items, dropped = items[:keep], len(items)-keep
	}
	blocks := make([]contract.EvidenceBlock, 0, len(items))
	scores := make([]float64, 0, len(items))
	sc := p.cfg.Score
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, 0, fmt.Errorf("block %d: want an object, got %s", i+1, typeOf(it))
		}
		var b contract.EvidenceBlock
		var score float64
		hasScore, hasDense, hasFused := false, false, false
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := obj[k]
			want, known := blockFields[k]
			if !known {
				return nil, 0, fmt.Errorf("block %d: unknown field %q (a block has %s)", i+1, k, strings.Join(BlockFields(), ", "))
			}
			if v == nil {
				continue
			}
			if s, ok := v.(string); ok {
				// Before a fixture holds it, and before a message quotes
				// it cut short: a service may echo a token. Only the
				// credentials: an index name in the URL is not one, and
				// replacing it would change the data.
				v = p.credentials.Scrub(s)
			}
			bad := func() error {
				hint := ""
				if want == "number" {
					if _, isStr := v.(string); isStr {
						hint = " (a number sent as a string, as Weaviate does: use tonumber)"
					}
				}
				if want == "string" && isNumberType(v) {
					hint = " (use tostring)"
				}
				return fmt.Errorf("block %d: %s: want a %s, got %s%s", i+1, k, want, typeOf(v), hint)
			}
			switch want {
			case "string":
				s, ok := v.(string)
				if !ok {
					return nil, 0, bad()
				}
				s = strings.ToValidUTF8(s, "\uFFFD") // scrubbed above
				switch k {
				case "evidenceKey":
					b.EvidenceKey, b.Has = s, b.Has|contract.BlockHasEvidenceKey
				case "docId":
					b.DocID, b.Has = s, b.Has|contract.BlockHasDocID
				case "source":
					b.Source, b.Has = s, b.Has|contract.BlockHasSource
				case "title":
					b.Title, b.Has = s, b.Has|contract.BlockHasTitle
				case "breadcrumb":
					b.Breadcrumb, b.Has = s, b.Has|contract.BlockHasBreadcrumb
				case "category":
					b.Category, b.Has = s, b.Has|contract.BlockHasCategory
				case "excerpt":
					b.Excerpt, b.Has = s, b.Has|contract.BlockHasExcerpt
				case "scoreLabel":
					b.ScoreLabel, b.Has = s, b.Has|contract.BlockHasScoreLabel
				}
			case "integer":
				f, ok := toFloat(v)
				if !ok || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
					return nil, 0, fmt.Errorf("block %d: %s: want an integer from 0, got %s", i+1, k, describe(v))
				}
				b.ChunkIndex, b.Has = int(f), b.Has|contract.BlockHasChunkIndex
			case "number":
				f, ok := toFloat(v)
				if !ok {
					return nil, 0, bad()
				}
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, 0, fmt.Errorf("block %d: %s: want a finite number, got %s", i+1, k, describe(v))
				}
				switch k {
				case "score":
					score, hasScore = f, true
				case "denseDistance":
					b.DenseDistance, hasDense = contract.Float6(f), true
					b.Has |= contract.BlockHasDenseDistance
				case "fusedScore":
					b.FusedScore, hasFused = contract.Float6(f), true
					b.Has |= contract.BlockHasFusedScore
				}
			}
		}
		if hasScore {
			if sc.Kind == "" {
				return nil, 0, fmt.Errorf("block %d: has a score but the config declares no score section (kind and quality)", i+1)
			}
			if sc.Min != nil && score < *sc.Min || sc.Max != nil && score > *sc.Max {
				return nil, 0, fmt.Errorf("block %d: score %g is outside the declared score.range %s", i+1, score, rangeString(sc))
			}
			// The raw score is kept where the builtin pipeline keeps
			// its own: a distance as denseDistance, a similarity as
			// fusedScore (the ranking score), unless the mapping set
			// them.
			if sc.Kind == Distance && !hasDense {
				b.DenseDistance = contract.Float6(score)
				b.Has |= contract.BlockHasDenseDistance
			}
			if sc.Kind == Similarity && !hasFused {
				b.FusedScore = contract.Float6(score)
				b.Has |= contract.BlockHasFusedScore
			}
			if b.Has&contract.BlockHasScoreLabel == 0 && sc.Label != "" {
				b.ScoreLabel = sc.Label
				b.Has |= contract.BlockHasScoreLabel
			}
		} else if sc.Quality != QualityNone {
			return nil, 0, fmt.Errorf("block %d: has no score, which score.quality %s needs", i+1, sc.Quality)
		}
		blocks = append(blocks, b)
		scores = append(scores, score)
	}
	if sc.Quality != QualityNone {
		for i, q := range qualities(sc, scores) {
			// Rounded as the fixture writes it, so the level and the
			// status agree with the number a reader sees.
			blocks[i].QualityScore = contract.Float6(contract.Round6(q))
			blocks[i].HasQuality = true
		}
	}
	return blocks, dropped, nil
}

// qualities converts the scores of a result list by the declared
// conversion, each clamped to [0, 1].
func qualities(sc Score, scores []float64) []float64 {
	out := make([]float64, len(scores))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		var q float64
		switch sc.Quality {
		case QualityIdentity:
			q = s
		case QualityTwoSM1:
			q = 2*s - 1
		case QualityOneMinus:
			q = 1 - s
		case QualityHalf:
			q = 1 - s/2
		case QualityL2:
			q = 1 - s*s/2
		case QualityMinMax:
			switch {
			case hi == lo:
				q = 1 // one result, or all equal: each is the best
			case sc.Kind == Distance:
				q = (hi - s) / (hi - lo)
			default:
				q = (s - lo) / (hi - lo)
			}
		}
		out[i] = min(max(q, 0), 1)
	}
	return out
}

func rangeString(sc Score) string {
	f := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprint(*p)
	}
	return "[" + f(sc.Min) + ", " + f(sc.Max) + "]"
}

// toFloat reads a jq number.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	}
	return 0, false
}

func isNumberType(v any) bool {
	switch v.(type) {
	case float64, int, json.Number, *big.Int:
		return true
	}
	return false
}

// typeOf names a jq value's type as jq's type does, with the value for
// scalars.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "the string " + describe(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	if isNumberType(v) {
		return "the number " + describe(v)
	}
	return fmt.Sprintf("%T", v)
}

// describe is a short rendering of a value for messages.
func describe(v any) string {
	s, err := compact(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if utf8.RuneCountInString(s) > 60 {
		head, _ := diag.Prefix(s, 57, diag.Chars)
		s = head + diag.Ellipsis
	}
	return s
}
