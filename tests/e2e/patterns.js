// Are the six colours' patterns told apart without colour? (tests/e2e/test_access.py)
//
// `png` is a screenshot (base64) of six squares, three to a row 8px apart, each showing one colour's pattern
// as the grid draws it, seen through a colour-vision-deficiency filter. For each square we take
// the relative luminance of every pixel inside its border (what is left once hue is lost), and
//   - contrast: the standard deviation of that luminance: is the pattern visible at all?
//   - likeness: for each pair of squares, the largest normalised cross-correlation of the two
//     luminance maps over every shift up to half a pattern tile either way (so two copies of one
//     pattern, offset, still count as alike: 1.0), and of one map with the other mirrored and
//     turned (so one stripe drawn at another angle would too). Two different patterns stay low.
async ({ png, count, size, inset }) => {
  const image = new Image();
  image.src = `data:image/png;base64,${png}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(image, 0, 0);
  const linear = (v) => { const c = v / 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const side = size - 2 * inset;
  const maps = [];
  for (let k = 0; k < count; k += 1) {
    const data = ctx.getImageData((k % 3) * (size + 8) + inset, Math.floor(k / 3) * (size + 8) + inset, side, side).data;
    const lum = new Float64Array(side * side);
    for (let i = 0; i < side * side; i += 1) {
      lum[i] = 0.2126 * linear(data[4 * i]) + 0.7152 * linear(data[4 * i + 1]) + 0.0722 * linear(data[4 * i + 2]);
    }
    maps.push(lum);
  }
  const mean = (m) => m.reduce((a, b) => a + b, 0) / m.length;
  // The marks against their ground: the ratio of the 90th to the 10th percentile luminance, as
  // WCAG's contrast ratio ((L1 + 0.05) / (L2 + 0.05); 3:1 is its bar for graphics).
  const contrast = maps.map((m) => {
    const sorted = Array.from(m).sort((a, b) => a - b);
    const p = (q) => sorted[Math.floor(q * (sorted.length - 1))];
    return (p(0.9) + 0.05) / (p(0.1) + 0.05);
  });
  const at = (m, x, y) => m[y * side + x];
  const turned = (m) => { const t = new Float64Array(m.length); for (let y = 0; y < side; y += 1) for (let x = 0; x < side; x += 1) t[x * side + (side - 1 - y)] = at(m, x, y); return t; };
  const mirrored = (m) => { const t = new Float64Array(m.length); for (let y = 0; y < side; y += 1) for (let x = 0; x < side; x += 1) t[y * side + (side - 1 - x)] = at(m, x, y); return t; };
  const reach = 9;
  function likeness(a, b) {
    let best = -1;
    for (let dy = -reach; dy <= reach; dy += 1) {
      for (let dx = -reach; dx <= reach; dx += 1) {
        let n = 0; let sa = 0; let sb = 0; let saa = 0; let sbb = 0; let sab = 0;
        for (let y = Math.max(0, dy); y < Math.min(side, side + dy); y += 1) {
          for (let x = Math.max(0, dx); x < Math.min(side, side + dx); x += 1) {
            const va = at(a, x, y); const vb = at(b, x - dx, y - dy);
            n += 1; sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
          }
        }
        const cov = sab / n - (sa / n) * (sb / n);
        const den = Math.sqrt((saa / n - (sa / n) ** 2) * (sbb / n - (sb / n) ** 2));
        if (den > 0) best = Math.max(best, cov / den);
      }
    }
    return best;
  }
  const pairs = [];
  for (let i = 0; i < count; i += 1) {
    for (let j = i + 1; j < count; j += 1) {
      const b = maps[j];
      const score = Math.max(likeness(maps[i], b), likeness(maps[i], turned(b)), likeness(maps[i], mirrored(b)));
      pairs.push({ i, j, score });
    }
  }
  const self = maps.map((m) => likeness(m, m));
  return { contrast, pairs, self };
}
