// The scans a filing carries, made on the phone: the signature pad, the signed manifest drawn
// as a PNG page, photos resized with a canvas, and each one's SHA-256.

const PHOTO_SIDE = 1600; // the longest side of a photo as sent, in pixels

export async function sha256(blob) {
  const digest = await crypto.subtle.digest("SHA-256", await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const blobOf = (canvas, type, quality) => new Promise((resolve) => canvas.toBlob(resolve, type, quality));

// A finger (or a gloved one, or a stylus) signs in the canvas; `strokes` counts what was drawn.
export function signaturePad(canvas) {
  const pad = { strokes: 0 };
  const context = canvas.getContext("2d");
  const fit = () => {
    const box = canvas.getBoundingClientRect();
    if (!box.width) return;
    canvas.width = Math.round(box.width * devicePixelRatio);
    canvas.height = Math.round(box.height * devicePixelRatio);
    pad.clear();
  };
  pad.clear = () => {
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    pad.strokes = 0;
  };
  const at = (event) => {
    const box = canvas.getBoundingClientRect();
    return [(event.clientX - box.left) * (canvas.width / box.width), (event.clientY - box.top) * (canvas.height / box.height)];
  };
  let drawing = false;
  canvas.addEventListener("pointerdown", (event) => {
    drawing = true;
    canvas.setPointerCapture(event.pointerId);
    context.lineWidth = 3 * devicePixelRatio;
    context.lineCap = context.lineJoin = "round";
    context.strokeStyle = "#000";
    context.beginPath();
    context.moveTo(...at(event));
    event.preventDefault();
  });
  canvas.addEventListener("pointermove", (event) => {
    if (!drawing) return;
    context.lineTo(...at(event));
    context.stroke();
    event.preventDefault();
  });
  const end = () => {
    if (drawing) pad.strokes += 1;
    drawing = false;
  };
  canvas.addEventListener("pointerup", end);
  canvas.addEventListener("pointercancel", end);
  pad.fit = fit;
  pad.blob = () => blobOf(canvas, "image/png");
  return pad;
}

// The signed manifest as a page: its lines of text and the signature under them.
export async function manifestPage(title, lines, signature) {
  const page = document.createElement("canvas");
  page.width = 1240;
  page.height = 1754;
  const context = page.getContext("2d");
  context.fillStyle = "#fff";
  context.fillRect(0, 0, page.width, page.height);
  context.fillStyle = "#000";
  context.font = "bold 44px sans-serif";
  context.fillText(title, 80, 130, page.width - 160);
  context.font = "30px sans-serif";
  let y = 220;
  for (const [label, value] of lines) {
    context.fillText(`${label}: ${value ?? ""}`, 80, y, page.width - 160);
    y += 50;
  }
  const image = await createImageBitmap(signature);
  const width = Math.min(page.width - 160, image.width);
  const height = (image.height * width) / image.width;
  context.strokeRect(80, y + 20, width, height);
  context.drawImage(image, 80, y + 20, width, height);
  return blobOf(page, "image/png");
}

// A photo as sent: its longest side at most PHOTO_SIDE pixels, as a JPEG.
export async function resized(file) {
  const image = await createImageBitmap(file);
  const scale = Math.min(1, PHOTO_SIDE / Math.max(image.width, image.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(image.width * scale);
  canvas.height = Math.round(image.height * scale);
  canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  return blobOf(canvas, "image/jpeg", 0.85);
}

// A small picture of a photo, drawn in a canvas (the page's policy takes no blob: images).
export async function thumbnail(blob, label) {
  const image = await createImageBitmap(blob);
  const canvas = document.createElement("canvas");
  canvas.width = 160;
  canvas.height = Math.round((160 * image.height) / image.width) || 120;
  canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", label);
  return canvas;
}
