package soa

import "testing"

// BenchmarkAppend refills batches of 4,096 elements with Append after a
// Reset, as an engine's broadphase does every step: the cost per element
// once the storage has grown (ns/elem).
func BenchmarkAppend(b *testing.B) {
	const n = 4096
	b.Run("IndexPairs", func(b *testing.B) {
		p := NewIndexPairs(n)
		for b.Loop() {
			p.Reset()
			for k := range uint32(n) {
				p.Append(k, k+1)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
	})
	b.Run("Pairs", func(b *testing.B) {
		p := NewPairs(n)
		v := [3]float32{1, 2, 3}
		for b.Loop() {
			p.Reset()
			for range n {
				p.Append(v, v, v, v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
	})
	b.Run("Capsules", func(b *testing.B) {
		c := NewCapsules(n)
		v := [3]float32{1, 2, 3}
		for b.Loop() {
			c.Reset()
			for range n {
				c.Append(v, v, 0.5)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
	})
	b.Run("PointSegments", func(b *testing.B) {
		p := NewPointSegments(n)
		v := [3]float32{1, 2, 3}
		for b.Loop() {
			p.Reset()
			for range n {
				p.Append(v, v, v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
	})
}
