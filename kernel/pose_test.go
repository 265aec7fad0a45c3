package kernel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// poseScene returns n bodies: local capsules (axes along y of half-length
// up to 2, some offset, some spheres), poses with random unit
// quaternions (rounded to float32) up to 1e4 from the origin, some
// identity and zero quaternions, and when bad a non-finite value in every
// 29th body's fields in turn. Every value is rounded explicitly, so the
// scene is the same bits on every platform.
func poseScene(n int, bad bool) (local soa.Capsules, poses *soa.Poses) {
	r := verify.NewRand(91, 1)
	local, poses = soa.NewCapsules(n), soa.NewPoses(n)
	u := func(lo, hi float64) float32 { return float32(lo + float64((hi-lo)*r.Float64())) }
	vals := verify.NonFinite()
	for i := range n {
		h := u(0, 2)
		a, b := [3]float32{0, -h, 0}, [3]float32{0, h, 0}
		switch i % 5 {
		case 1:
			off := [3]float32{u(-1, 1), u(-1, 1), u(-1, 1)}
			a, b = [3]float32{off[0], off[1] - h, off[2]}, [3]float32{off[0], off[1] + h, off[2]}
		case 2:
			a, b = [3]float32{}, [3]float32{}
		}
		local.Set(i, a, b, u(0.1, 1))
		q := verify.RandomQuaternion(r)
		qq := [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
		switch i % 7 {
		case 3:
			qq = [4]float32{0, 0, 0, 1}
		case 4:
			qq = [4]float32{}
		}
		poses.Set(i, [3]float32{u(-1e4, 1e4), u(-1e4, 1e4), u(-1e4, 1e4)}, qq)
	}
	if bad {
		streams := []*[]float32{&poses.PX, &poses.PY, &poses.PZ, &poses.QX, &poses.QY, &poses.QZ, &poses.QW}
		for i := 11; i < n; i += 29 {
			v := vals[(i/29)%len(vals)]
			switch f := (i / 29) % 14; {
			case f < 7:
				(*streams[f])[i] = v
			case f < 10:
				local[i].A[f-7] = v
			case f < 13:
				local[i].B[f-10] = v
			default:
				local[i].R = v
			}
		}
	}
	return local, poses
}

// widenPoses returns the scene in float64.
func widenPoses(local soa.Capsules, poses *soa.Poses) (soa.Capsules64, *soa.Poses64) {
	p64 := soa.NewPoses64(poses.Len())
	for i := range poses.Len() {
		p, q := poses.Get(i)
		p64.Set(i, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}, [4]float64{float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])})
	}
	return verify.WidenCapsules(local), p64
}

// sameRecord reports whether two capsule records are the same bits,
// padding included (the kernels write it zero).
func sameRecord[F soa.Float](a, b soa.CapsuleOf[F]) bool {
	return fmt.Sprintf("%x", recordBits(a)) == fmt.Sprintf("%x", recordBits(b))
}

// recordBits returns the bits of the record's eight floats, its padding
// last.
func recordBits[F soa.Float](c soa.CapsuleOf[F]) []uint64 {
	var out []uint64
	for _, x := range *(*[8]F)(unsafe.Pointer(&c)) {
		switch v := any(x).(type) {
		case float32:
			out = append(out, uint64(math.Float32bits(v)))
		case float64:
			out = append(out, math.Float64bits(v))
		}
	}
	return out
}

// TestCapsulesFromPoses: on every path, in float32 and float64, every
// record is fallback.PoseCapsuleLane's bit for bit, with zero padding, on
// odd sizes and bad lanes; the indexed form writes the listed bodies only.
func TestCapsulesFromPoses(t *testing.T) {
	local, poses := poseScene(1000, true)
	local64, poses64 := widenPoses(local, poses)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range []int{0, 1, 7, 16, 17, 333, 1000} {
			sub := &soa.Poses{PX: poses.PX[:n], PY: poses.PY[:n], PZ: poses.PZ[:n], QX: poses.QX[:n], QY: poses.QY[:n], QZ: poses.QZ[:n], QW: poses.QW[:n]}
			sub64 := &soa.Poses64{PX: poses64.PX[:n], PY: poses64.PY[:n], PZ: poses64.PZ[:n], QX: poses64.QX[:n], QY: poses64.QY[:n], QZ: poses64.QZ[:n], QW: poses64.QW[:n]}
			dst, dst64 := soa.NewCapsules(n), soa.NewCapsules64(n)
			for i := range dst {
				dst[i].R, dst64[i].R = 7, 7 // overwritten
			}
			k.CapsulesFromPoses(dst, local[:n], sub)
			k.CapsulesFromPoses64(dst64, local64[:n], sub64)
			for i := range n {
				l := local[i]
				p, q := poses.Get(i)
				a, b, r := fallback.PoseCapsuleLane(p[0], p[1], p[2], q[0], q[1], q[2], q[3], l.A[0], l.A[1], l.A[2], l.B[0], l.B[1], l.B[2], l.R)
				if want := (soa.Capsule{A: a, R: r, B: b}); !sameRecord(dst[i], want) {
					t.Fatalf("n=%d body %d: %+v, spec %+v", n, i, dst[i], want)
				}
				l64 := local64[i]
				p64, q64 := poses64.Get(i)
				a64, b64, r64 := fallback.PoseCapsuleLane64(p64[0], p64[1], p64[2], q64[0], q64[1], q64[2], q64[3], l64.A[0], l64.A[1], l64.A[2], l64.B[0], l64.B[1], l64.B[2], l64.R)
				if want := (soa.Capsule64{A: a64, R: r64, B: b64}); !sameRecord(dst64[i], want) {
					t.Fatalf("n=%d float64 body %d: %+v, spec %+v", n, i, dst64[i], want)
				}
			}
		}
		// The indexed form: every third body, in reverse; the others keep
		// their records.
		var bodies []uint32
		for i := len(local) - 1; i >= 0; i -= 3 {
			bodies = append(bodies, uint32(i))
		}
		dense, dst := soa.NewCapsules(len(local)), soa.NewCapsules(len(local))
		k.CapsulesFromPoses(dense, local, poses)
		for i := range dst {
			dst[i].R = -3
		}
		k.CapsulesFromPosesIndexed(dst, local, poses, bodies)
		for i := range dst {
			if (len(local)-1-i)%3 == 0 {
				if !sameRecord(dst[i], dense[i]) {
					t.Fatalf("indexed: body %d %+v, dense %+v", i, dst[i], dense[i])
				}
			} else if dst[i] != (soa.Capsule{R: -3}) {
				t.Fatalf("indexed: body %d not listed but written: %+v", i, dst[i])
			}
		}
	})
}

// posesGoldenHash pins CapsulesFromPoses and CapsulesFromPoses64 on
// poseScene(1000, true), the same on every path and platform.
const posesGoldenHash = "39a2741745700c00e9e838a9298260ba3ae4c7350a3702c22607e2f7286849f2"

// TestCapsulesFromPosesGolden checks posesGoldenHash on every path.
func TestCapsulesFromPosesGolden(t *testing.T) {
	local, poses := poseScene(1000, true)
	local64, poses64 := widenPoses(local, poses)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		dst, dst64 := soa.NewCapsules(len(local)), soa.NewCapsules64(len(local))
		k.CapsulesFromPoses(dst, local, poses)
		k.CapsulesFromPoses64(dst64, local64, poses64)
		var bits []uint64
		for i := range dst {
			bits = append(append(bits, recordBits(dst[i])...), recordBits(dst64[i])...)
		}
		if got := verify.HashUint64s(bits); got != posesGoldenHash {
			t.Errorf("golden hash %s, want %s", got, posesGoldenHash)
		}
	})
}

// TestCapsulesFromPosesChecks: bad arguments panic, naming what is wrong,
// before anything is written; valid calls allocate nothing.
func TestCapsulesFromPosesChecks(t *testing.T) {
	local, poses := poseScene(50, false)
	k := lookup(t, kernel.ISA())
	dst := soa.NewCapsules(50)
	for name, c := range map[string]struct {
		call func()
		want string
	}{
		"lengths":     {func() { k.CapsulesFromPoses(dst[:49], local, poses) }, "len(dst) = 49"},
		"stream":      {func() { p := *poses; p.QW = p.QW[:10]; k.CapsulesFromPoses(dst, local, &p) }, "len(poses.QW) = 10"},
		"nil":         {func() { k.CapsulesFromPoses(dst, local, nil) }, "poses is a nil"},
		"aliased":     {func() { k.CapsulesFromPoses(local, local, poses) }, "share memory"},
		"body index":  {func() { k.CapsulesFromPosesIndexed(dst, local, poses, []uint32{3, 50}) }, "bodies[1] = 50 out of range"},
		"float64 nil": {func() { k.CapsulesFromPoses64(soa.NewCapsules64(1), soa.NewCapsules64(1), nil) }, "poses is a nil"},
	} {
		for i := range dst {
			dst[i].R = -9
		}
		msg, ok := panicMessage(c.call)
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("%s: panic %q (panicked %v), want one containing %q", name, msg, ok, c.want)
		}
		if dst[0].R != -9 || dst[3].R != -9 {
			t.Errorf("%s: written before the panic", name)
		}
	}
	bodies := []uint32{1, 2, 3}
	if a := testing.AllocsPerRun(20, func() {
		k.CapsulesFromPoses(dst, local, poses)
		k.CapsulesFromPosesIndexed(dst, local, poses, bodies)
	}); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}
