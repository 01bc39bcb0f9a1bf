// pliant replay viewer: canvas 2-D, painter's algorithm, no dependencies.
// The data (JSON in #data) holds per part the primitives, the 16-bit
// quantized positions of every frame and the fields to colour by.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const canvas = $("c"), ctx = canvas.getContext("2d");

  function u16(b64) {
    const s = atob(b64), n = s.length >> 1, out = new Uint16Array(n);
    for (let i = 0; i < n; i++) out[i] = s.charCodeAt(2 * i) | (s.charCodeAt(2 * i + 1) << 8);
    return out;
  }
  function f32(b64) {
    const s = atob(b64), n = s.length >> 2, out = new Float32Array(n), v = new DataView(new ArrayBuffer(4));
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 4; k++) v.setUint8(k, s.charCodeAt(4 * i + k));
      out[i] = v.getFloat32(0, true);
    }
    return out;
  }
  for (const p of D.parts) {
    p.pos = u16(p.positions);
    p.box = f32(p.boxes);
    p.nprim = p.prim === "triangles" ? p.indices.length / 3 : p.prim === "lines" ? p.indices.length / 2 : p.indices.length;
    for (const f of p.fields) f.q = u16(f.data);
  }
  const F = D.frames;
  if (F === 0) {
    document.getElementById("title").textContent = D.title + ": no frames were recorded";
    return;
  }

  // ---- vectors
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const scale = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
  const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const unit = (a) => scale(a, 1 / (Math.hypot(a[0], a[1], a[2]) || 1));

  // ---- camera: orbit around a target, "up" = the ground's normal
  const plane = D.fixed.find((f) => f.type === "plane");
  const up = plane ? unit(plane.normal) : D.dim === 2 ? [0, 1, 0] : [0, 0, 1];
  const ax = Math.abs(up[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  const e1 = unit(sub(ax, scale(up, dot(ax, up)))), e2 = cross(up, e1);
  // The home view frames the first frame (a body that later flies off
  // stays reachable by zooming out).
  const first = [[Infinity, Infinity, Infinity], [-Infinity, -Infinity, -Infinity]];
  for (const p of D.parts) {
    if (p.points === 0 || p.box.length < 6) continue;
    for (let a = 0; a < 3; a++) {
      first[0][a] = Math.min(first[0][a], p.box[a]);
      first[1][a] = Math.max(first[1][a], p.box[3 + a]);
    }
  }
  if (!(first[0][0] <= first[1][0])) { first[0] = D.lo.slice(); first[1] = D.hi.slice(); }
  // …and the centre-of-mass path as far as 3 first-frame extents away (a
  // walking robot's path, not a cell flung 300 m).
  const c0 = [0, 1, 2].map((a) => 0.5 * (first[0][a] + first[1][a]));
  const e0 = Math.max(...[0, 1, 2].map((a) => first[1][a] - first[0][a]), 1e-3);
  for (const c of D.com) {
    if (Math.hypot(c[0] - c0[0], c[1] - c0[1], c[2] - c0[2]) > 3 * e0) continue;
    for (let a = 0; a < 3; a++) {
      first[0][a] = Math.min(first[0][a], c[a]);
      first[1][a] = Math.max(first[1][a], c[a]);
    }
  }
  const centre = [0, 1, 2].map((a) => 0.5 * (first[0][a] + first[1][a]));
  const extent = Math.max(...[0, 1, 2].map((a) => first[1][a] - first[0][a]), 1e-3);
  const home = () => ({
    az: D.dim === 2 ? -Math.PI / 2 : -Math.PI / 3,
    el: D.dim === 2 ? 0.0 : 0.45,
    dist: 2.0 * extent,
    target: centre.slice(),
  });
  let cam = home();
  let view = null;
  function setupView() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const d = add(scale(add(scale(e1, Math.cos(cam.az)), scale(e2, Math.sin(cam.az))), Math.cos(cam.el)), scale(up, Math.sin(cam.el)));
    const eye = add(cam.target, scale(d, cam.dist));
    const fwd = scale(d, -1);
    let right = cross(fwd, up);
    if (Math.hypot(right[0], right[1], right[2]) < 1e-9) right = e1;
    right = unit(right);
    const cup = cross(right, fwd);
    const focal = 0.5 * Math.min(w, h) / Math.tan(0.35) * dpr;
    view = { eye, fwd, right, cup, focal, cx: 0.5 * w * dpr, cy: 0.5 * h * dpr, dpr, w: w * dpr, h: h * dpr };
  }
  // Projects x: [sx, sy, depth, pixels per metre at x]; depth ≤ 0 is behind.
  function proj(x) {
    const r = sub(x, view.eye), z = dot(r, view.fwd);
    const k = view.focal / Math.max(z, 1e-9);
    return [view.cx + dot(r, view.right) * k, view.cy - dot(r, view.cup) * k, z, k];
  }

  // ---- colours
  const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function cmap(t) {
    t = Math.min(1, Math.max(0, isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
    const i = Math.min(VIRIDIS.length - 2, Math.floor(t)), f = t - i, a = VIRIDIS[i], b = VIRIDIS[i + 1];
    return [0, 1, 2].map((k) => a[k] + f * (b[k] - a[k]));
  }
  const PALETTE = [[214, 143, 92], [92, 142, 214], [120, 180, 110], [200, 110, 160], [150, 150, 150], [220, 190, 90]];
  const rgb = (c, s) => `rgb(${Math.round(c[0] * s)},${Math.round(c[1] * s)},${Math.round(c[2] * s)})`;

  // ---- fields
  const names = [];
  for (const p of D.parts) for (const f of p.fields) if (!names.includes(f.name)) names.push(f.name);
  const sel = $("field");
  sel.add(new Option("none (by part)", ""));
  for (const n of names) sel.add(new Option(n, n));
  const prefer = ["energy_density", "tension", "pressure", "strain", "area_ratio", "speed"];
  sel.value = prefer.find((n) => names.includes(n)) || "";
  function range(name) {
    let a = Infinity, b = -Infinity, unit = "";
    for (const p of D.parts) for (const f of p.fields) if (f.name === name) { a = Math.min(a, f.min); b = Math.max(b, f.max); unit = f.unit; }
    return [a, b, unit];
  }
  function legend() {
    const name = sel.value;
    $("legend").style.display = name ? "" : "none";
    if (!name) return;
    const [a, b, unit] = range(name);
    $("lname").textContent = `${name} (${unit})`;
    $("lmin").textContent = a.toPrecision(3);
    $("lmax").textContent = b.toPrecision(3);
    const lc = $("lbar").getContext("2d");
    for (let i = 0; i < 160; i++) { lc.fillStyle = rgb(cmap(i / 159), 1); lc.fillRect(i, 0, 1, 10); }
  }

  // ---- frame state
  let frame = 0, playing = true, simTime = D.times[0] || 0;
  const slider = $("slider");
  slider.max = String(Math.max(0, F - 1));

  function point(p, f, i) {
    const o = (f * p.points + i) * 3, q = p.pos, b = p.box, k = 6 * f;
    return [0, 1, 2].map((a) => b[k + a] + q[o + a] / 65535 * (b[k + 3 + a] - b[k + a]));
  }

  function drawGround(extentHalf) {
    if (!plane) return;
    const n = unit(plane.normal);
    const a = Math.abs(n[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    const u = unit(sub(a, scale(n, dot(a, n)))), w = cross(n, u);
    const c0 = sub(cam.target, scale(n, dot(sub(cam.target, plane.point), n)));
    const step = Math.pow(10, Math.floor(Math.log10(extentHalf / 4)));
    const m = Math.ceil(extentHalf / step);
    const base = [dot(c0, u), dot(c0, w)].map((v) => Math.round(v / step) * step);
    const at = (s, t) => add(add(plane.point, scale(u, s - dot(plane.point, u))), scale(w, t - dot(plane.point, w)));
    ctx.lineWidth = 1 * view.dpr;
    for (let k = -m; k <= m; k++) {
      for (const dir of [0, 1]) {
        const s0 = base[0] + k * step, t0 = base[1] + k * step;
        const A = dir ? at(s0, base[1] - m * step) : at(base[0] - m * step, t0);
        const B = dir ? at(s0, base[1] + m * step) : at(base[0] + m * step, t0);
        const pa = proj(A), pb = proj(B);
        if (pa[2] <= 0 || pb[2] <= 0) continue;
        ctx.strokeStyle = k === 0 ? "#9aa3b5" : "#d3d7df";
        ctx.beginPath(); ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); ctx.stroke();
      }
    }
  }

  function draw() {
    setupView();
    ctx.fillStyle = "#f4f5f7";
    ctx.fillRect(0, 0, view.w, view.h);
    drawGround(Math.max(1.5 * extent, 0.1));
    const name = sel.value, [fa, fb] = name ? range(name) : [0, 1];
    const norm = (v) => (fb > fa ? (v - fa) / (fb - fa) : 0.5);
    let items = [];
    D.parts.forEach((p, pi) => {
      const P = new Array(p.points), X = new Array(p.points);
      for (let i = 0; i < p.points; i++) { X[i] = point(p, frame, i); P[i] = proj(X[i]); }
      const fld = name ? p.fields.find((f) => f.name === name) : null;
      const val = (prim, idx) => {
        if (!fld) return null;
        const n = fld.per_point ? p.points : p.nprim;
        const qv = (j) => fld.min + fld.q[frame * n + j] / 65535 * (fld.max - fld.min);
        if (!fld.per_point) return qv(prim);
        let s = 0; for (const j of idx) s += qv(j);
        return s / idx.length;
      };
      const base = PALETTE[pi % PALETTE.length];
      if (p.prim === "triangles") {
        for (let t = 0; t < p.nprim; t++) {
          const ia = p.indices[3 * t], ib = p.indices[3 * t + 1], ic = p.indices[3 * t + 2];
          const A = P[ia], B = P[ib], C = P[ic];
          if (A[2] <= 0 || B[2] <= 0 || C[2] <= 0) continue;
          const nrm = cross(sub(X[ib], X[ia]), sub(X[ic], X[ia]));
          const shade = 0.45 + 0.55 * Math.abs(dot(unit(nrm), view.fwd));
          const v = val(t, [ia, ib, ic]);
          items.push({ z: (A[2] + B[2] + C[2]) / 3, k: 0, pts: [A, B, C], col: rgb(v === null ? base : cmap(norm(v)), shade) });
        }
      } else if (p.prim === "lines") {
        for (let e = 0; e < p.nprim; e++) {
          const ia = p.indices[2 * e], ib = p.indices[2 * e + 1], A = P[ia], B = P[ib];
          if (A[2] <= 0 || B[2] <= 0) continue;
          const r = p.radius ? p.radius[e] : 0;
          const width = Math.max(1.5 * view.dpr, 2 * r * 0.5 * (A[3] + B[3]));
          const v = val(e, [ia, ib]);
          items.push({ z: 0.5 * (A[2] + B[2]), k: 1, pts: [A, B], w: width, col: rgb(v === null ? [60, 60, 70] : cmap(norm(v)), 1) });
        }
      } else {
        for (let e = 0; e < p.nprim; e++) {
          const ia = p.indices[e], A = P[ia];
          if (A[2] <= 0) continue;
          const r = Math.max(2.5 * view.dpr, (p.radius ? p.radius[e] : 0) * A[3]);
          const v = val(e, [ia]);
          items.push({ z: A[2], k: 2, pts: [A], w: r, col: rgb(v === null ? base : cmap(norm(v)), 1) });
        }
      }
    });
    for (const f of D.fixed) {
      if (f.type !== "sphere") continue;
      const c = proj(f.centre);
      if (c[2] <= 0) continue;
      items.push({ z: c[2] + f.radius, k: 3, pts: [c], w: f.radius * c[3] });
    }
    items.sort((a, b) => b.z - a.z);
    if ($("xray").checked) {
      const solid = items.filter((it) => it.k === 0 || it.k === 3);
      items = solid.concat(items.filter((it) => it.k === 1 || it.k === 2));
    }
    ctx.lineJoin = "round"; ctx.lineCap = "round";
    for (const it of items) {
      const p = it.pts;
      if (it.k === 0) {
        ctx.fillStyle = it.col; ctx.strokeStyle = it.col; ctx.lineWidth = 0.6;
        ctx.beginPath(); ctx.moveTo(p[0][0], p[0][1]); ctx.lineTo(p[1][0], p[1][1]); ctx.lineTo(p[2][0], p[2][1]); ctx.closePath();
        ctx.fill(); ctx.stroke();
      } else if (it.k === 1) {
        ctx.strokeStyle = it.col; ctx.lineWidth = it.w;
        ctx.beginPath(); ctx.moveTo(p[0][0], p[0][1]); ctx.lineTo(p[1][0], p[1][1]); ctx.stroke();
      } else if (it.k === 2) {
        ctx.fillStyle = it.col;
        ctx.beginPath(); ctx.arc(p[0][0], p[0][1], it.w, 0, 2 * Math.PI); ctx.fill();
      } else {
        const g = ctx.createRadialGradient(p[0][0] - 0.3 * it.w, p[0][1] - 0.3 * it.w, 0.1 * it.w, p[0][0], p[0][1], it.w);
        g.addColorStop(0, "#e8eaee"); g.addColorStop(1, "#8a90a0");
        ctx.fillStyle = g;
        ctx.beginPath(); ctx.arc(p[0][0], p[0][1], it.w, 0, 2 * Math.PI); ctx.fill();
      }
    }
    // Centre-of-mass path up to this frame.
    ctx.strokeStyle = "#d0312d"; ctx.lineWidth = 2 * view.dpr;
    ctx.beginPath();
    let started = false;
    for (let f = 0; f <= frame; f++) {
      const c = proj(D.com[f]);
      if (c[2] <= 0) { started = false; continue; }
      if (started) ctx.lineTo(c[0], c[1]); else { ctx.moveTo(c[0], c[1]); started = true; }
    }
    ctx.stroke();
    const c = proj(D.com[frame] || [0, 0, 0]);
    if (c[2] > 0) { ctx.fillStyle = "#d0312d"; ctx.beginPath(); ctx.arc(c[0], c[1], 4 * view.dpr, 0, 2 * Math.PI); ctx.fill(); }
    $("time").textContent = `t = ${(D.times[frame] || 0).toFixed(3)} s  (${frame + 1}/${F})`;
    slider.value = String(frame);
    window.replayFrameDrawn = frame;
  }

  // ---- playback
  function setFrame(f) { frame = Math.max(0, Math.min(F - 1, f)); simTime = D.times[frame] || 0; draw(); }
  function setPlaying(p) { playing = p && F > 1; $("play").textContent = playing ? "❚❚ pause" : "▶ play"; last = null; }
  let last = null;
  function tick(now) {
    if (playing) {
      if (last !== null) {
        simTime += (now - last) / 1000 * Number($("speed").value);
        if (simTime > D.times[F - 1]) simTime = D.times[0];
        let f = frame;
        if (D.times[f] > simTime) f = 0;
        while (f + 1 < F && D.times[f + 1] <= simTime) f++;
        if (f !== frame) { frame = f; draw(); }
      }
      last = now;
    }
    requestAnimationFrame(tick);
  }
  $("play").onclick = () => setPlaying(!playing);
  slider.oninput = () => { setPlaying(false); setFrame(Number(slider.value)); };
  sel.onchange = () => { legend(); draw(); };
  $("xray").onchange = draw;
  $("reset").onclick = () => { cam = home(); draw(); };
  window.addEventListener("keydown", (e) => {
    if (e.key === " ") { setPlaying(!playing); e.preventDefault(); }
    else if (e.key === "ArrowRight") { setPlaying(false); setFrame(frame + 1); }
    else if (e.key === "ArrowLeft") { setPlaying(false); setFrame(frame - 1); }
  });
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, pan: e.shiftKey }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener("pointerup", () => { drag = null; });
  canvas.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.x = e.clientX; drag.y = e.clientY;
    if (drag.pan) {
      const k = cam.dist / (view.focal / view.dpr);
      cam.target = add(cam.target, add(scale(view.right, -dx * k), scale(view.cup, dy * k)));
    } else {
      cam.az -= dx * 0.008;
      cam.el = Math.max(-1.5, Math.min(1.5, cam.el + dy * 0.008));
    }
    draw();
  });
  canvas.addEventListener("wheel", (e) => { cam.dist *= Math.exp(e.deltaY * 0.001); e.preventDefault(); draw(); }, { passive: false });
  window.addEventListener("resize", draw);

  // #frame=N or #frame=last opens paused at that frame (for screenshots).
  const m = /frame=(\d+|last)/.exec(location.hash);
  $("title").textContent = D.title;
  legend();
  if (m) { setPlaying(false); setFrame(m[1] === "last" ? F - 1 : Number(m[1])); }
  else { setPlaying(true); setFrame(0); }
  requestAnimationFrame(tick);
})();
