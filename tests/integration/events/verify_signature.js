// The two ways webhook receivers check X-Signature (docs/research/client-facts.md §21):
// over the raw body (express bodyParser.raw receivers), and over JSON.stringify(JSON.parse(body))
// as the official Node SDK (tebex-sdk-nodejs Webhook.validateSignature) does.
// Usage: node verify_signature.js <secret> <signature>  (body on stdin) -> {"raw":bool,"reserialised":bool}
const crypto = require("crypto");

const [secret, signature] = process.argv.slice(2);
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const raw = Buffer.concat(chunks).toString("utf8");
  const sign = (text) => {
    const digest = crypto.createHash("sha256").update(text, "utf8").digest("hex");
    return crypto.createHmac("sha256", secret).update(digest).digest("hex");
  };
  process.stdout.write(
    JSON.stringify({ raw: sign(raw) === signature, reserialised: sign(JSON.stringify(JSON.parse(raw))) === signature })
  );
});
