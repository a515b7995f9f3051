import { describe, expect, it } from 'vitest';
import { coordinatesText, haversineMetres } from '@/lib/geo';

describe('distances on the earth', () => {
  it('measures a degree of latitude as about 111.2 km and a point to itself as nothing', () => {
    expect(haversineMetres({ lat: 0, lng: 0 }, { lat: 1, lng: 0 })).toBeCloseTo(111_195, -1);
    expect(haversineMetres({ lat: 39.29, lng: -76.61 }, { lat: 39.29, lng: -76.61 })).toBe(0);
  });

  it('shrinks a degree of longitude away from the equator, the same both ways', () => {
    const fellsPoint = { lat: 39.2825, lng: -76.5927 };
    const pattersonPark = { lat: 39.2905, lng: -76.5794 };
    const there = haversineMetres(fellsPoint, pattersonPark);
    // 0.008° north (≈ 890 m) and 0.0133° east at 39.3° (≈ 1145 m).
    expect(there).toBeGreaterThan(1440);
    expect(there).toBeLessThan(1460);
    expect(haversineMetres(pattersonPark, fellsPoint)).toBeCloseTo(there, 6);
  });

  it('writes a point with five decimals', () => {
    expect(coordinatesText({ lat: 39.2825, lng: -76.5927 })).toBe('39.28250, -76.59270');
  });
});
