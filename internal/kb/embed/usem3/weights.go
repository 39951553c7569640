package usem3

import (
	"fmt"
)

// Shapes of the model.
const (
	numChunks = 17                    // the embedding table is stored in 17 interleaved chunks
	chunkRows = 7530                  // rows per chunk
	vocabRows = numChunks * chunkRows // 128010 rows ≥ the 128000 pieces
	embDim    = 512                   // token embedding width
	cnnDim    = 256                   // width of each n-gram branch
	projDim   = 3 * cnnDim            // the three branch projections side by side
	featDim   = embDim + projDim      // per-token features: embedding ‖ three branches
	hidDim    = 320                   // width of the narrow dense layers
)

// branch is one n-gram convolution: the window of token t is tokens
// t-left … t-left+width-1.
type branch struct{ width, left int }

// branches are the three n-gram orders, in the order their features are
// concatenated.
var branches = [3]branch{{2, 0}, {3, 1}, {5, 2}}

// halo is how far the receptive field of a token's features reaches to
// either side. Two stacked convolutions each reach two tokens. A token's
// features are exact when the rows computed around it include halo tokens
// of context on each side, or reach the text's ends.
const halo = 4

// weights are the model's parameters, dequantised and packed for gemm,
// read-only after load.
type weights struct {
	// Token embedding of piece id: chunk c = id % 17, row id / 17 of q[c],
	// and value = q·scale[c] + lo[c] for the 6-bit codes 0…63.
	q         [numChunks][]uint8
	scale, lo [numChunks]float32

	proj       *packedB // 512×768: proj2 ‖ proj3 ‖ proj5
	projB      []float32
	lnG1, lnB1 []float32 // layer norm over the 768 projected dims jointly
	w1, w2     [3]*packedB
	b1, b2     [3][]float32
	lnG, lnB   []float32 // layer norm over the 1280 features
	cnnW       *packedB  // 1280×512
	cnnB       []float32
	d0, p1, d1 *packedB // 512×320, 512×320, 320×320
	d2, p3, d3 *packedB // 320×512, 320×512, 512×512
	eps        float32
}

func newWeights(z npz) (*weights, error) {
	w := &weights{}
	bits, err := z.array("bits", "|i1", 1)
	if err != nil {
		return nil, err
	}
	if bits.data[0] != 6 {
		return nil, fmt.Errorf("embedding table quantised to %d bits, want 6", int8(bits.data[0]))
	}
	for c := range numChunks {
		a, err := z.array(fmt.Sprintf("q%d", c+1), "|u1", chunkRows, embDim)
		if err != nil {
			return nil, err
		}
		w.q[c] = a.data
	}
	scale, err := z.float32s("scale", numChunks)
	if err != nil {
		return nil, err
	}
	lo, err := z.float32s("lo", numChunks)
	if err != nil {
		return nil, err
	}
	copy(w.scale[:], scale)
	copy(w.lo[:], lo)

	get := func(name string, shape ...int) []float32 {
		if err != nil {
			return nil
		}
		var v []float32
		v, err = z.float32s(name, shape...)
		return v
	}
	pack := func(v []float32, k, n int) *packedB {
		if err != nil {
			return nil
		}
		var p *packedB
		p, err = packB(v, k, n)
		return p
	}

	orders := [3]int{2, 3, 5}
	proj := make([]float32, embDim*projDim)
	w.projB = make([]float32, 0, projDim)
	w.lnG1 = make([]float32, 0, projDim)
	w.lnB1 = make([]float32, 0, projDim)
	for i, n := range orders {
		p := get(fmt.Sprintf("proj%d", n), embDim, cnnDim)
		w.projB = append(w.projB, get(fmt.Sprintf("proj_b%d", n), cnnDim)...)
		w.lnG1 = append(w.lnG1, get(fmt.Sprintf("ln_g%d", n), cnnDim)...)
		w.lnB1 = append(w.lnB1, get(fmt.Sprintf("ln_b%d", n), cnnDim)...)
		if err != nil {
			return nil, err
		}
		for k := range embDim {
			copy(proj[k*projDim+i*cnnDim:k*projDim+(i+1)*cnnDim], p[k*cnnDim:(k+1)*cnnDim])
		}
		w.w1[i] = pack(get(fmt.Sprintf("w1_%d", n), n*cnnDim, cnnDim), n*cnnDim, cnnDim)
		w.b1[i] = get(fmt.Sprintf("b1_%d", n), cnnDim)
		w.w2[i] = pack(get(fmt.Sprintf("w2_%d", n), n*cnnDim, cnnDim), n*cnnDim, cnnDim)
		w.b2[i] = get(fmt.Sprintf("b2_%d", n), cnnDim)
	}
	w.proj = pack(proj, embDim, projDim)
	w.lnG = get("ln_g", featDim)
	w.lnB = get("ln_b", featDim)
	w.cnnW = pack(get("cnn_W", featDim, embDim), featDim, embDim)
	w.cnnB = get("cnn_b", embDim)
	w.d0 = pack(get("d0", embDim, hidDim), embDim, hidDim)
	w.p1 = pack(get("p1", embDim, hidDim), embDim, hidDim)
	w.d1 = pack(get("d1", hidDim, hidDim), hidDim, hidDim)
	w.d2 = pack(get("d2", hidDim, embDim), hidDim, embDim)
	w.p3 = pack(get("p3", hidDim, embDim), hidDim, embDim)
	w.d3 = pack(get("d3", embDim, embDim), embDim, embDim)
	if err != nil {
		return nil, err
	}
	eps, err := z.float64Scalar("eps")
	if err != nil {
		return nil, err
	}
	if !(eps > 0 && eps < 1e-3) {
		return nil, fmt.Errorf("layer norm epsilon %v out of range", eps)
	}
	w.eps = float32(eps)
	return w, nil
}
