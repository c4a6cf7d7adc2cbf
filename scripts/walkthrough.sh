#!/usr/bin/env bash
# The README walkthrough as a script: login, keys, a reference and an input document, a workflow, a run, polling,
# and the DOCX download. Needs a running server (npm start) and curl; prints each step.
#   ASSAY=http://localhost:8080 EMAIL=admin@example.com PASSWORD=… bash scripts/walkthrough.sh RUBRIC_FILE INPUT_FILE
set -euo pipefail
ASSAY=${ASSAY:-http://localhost:8080}
RUBRIC=${1:?rubric file}
INPUT=${2:?input file}
json() { sed -E "s/.*\"$1\":\"([^\"]*)\".*/\1/"; }

SESSION=$(curl -sf -X POST "$ASSAY/v1/auth/login" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" | json token)
KEY=$(curl -sf -X POST "$ASSAY/v1/keys" -H "Authorization: Bearer $SESSION" -H 'Content-Type: application/json' \
  -d '{"name":"walkthrough"}' | json token)
echo "key: ${KEY:0:12}…"

# A reference document (the rubric), in one multipart request; indexing runs in the background.
REF=$(curl -sf -X POST "$ASSAY/v1/reference-documents" -H "Authorization: Bearer $KEY" \
  -F name='Rubric' -F "file=@$RUBRIC" | json id)
echo "reference: $REF"

# An input document through the presigned flow: declare, PUT the bytes, complete.
UPLOAD=$(curl -sf -X POST "$ASSAY/v1/documents" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d "{\"filename\":\"$(basename "$INPUT")\"}")
DOC=$(echo "$UPLOAD" | json id)
curl -sf -X PUT --data-binary "@$INPUT" -H "Content-Type: $(echo "$UPLOAD" | json upload_content_type)" \
  "$(echo "$UPLOAD" | json upload_url)" > /dev/null
curl -sf -X POST "$ASSAY/v1/documents/$DOC/complete" -H "Authorization: Bearer $KEY" > /dev/null
echo "input: $DOC"

WF=$(curl -sf -X POST "$ASSAY/v1/workflows" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d "{\"product_code\":\"education\",\"name\":\"Walkthrough\",\"reference_document_ids\":[\"$REF\"],\"output_format\":\"docx\",\"user_prompt\":\"Grade the document against the rubric and quote it as evidence.\"}" | json id)
echo "workflow: $WF"

RUN=$(curl -sf -X POST "$ASSAY/v1/workflows/$WF/runs" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -H "Idempotency-Key: $(date +%s%N)" -d "{\"input_documents\":[\"$DOC\"]}" | json id)
echo "run: $RUN"

for _ in $(seq 1 120); do
  STATUS=$(curl -sf "$ASSAY/v1/runs/$RUN" -H "Authorization: Bearer $KEY" | sed -E 's/.*"status":"([a-z]+)".*/\1/')
  [ "$STATUS" = queued ] || [ "$STATUS" = running ] || break
  sleep 1
done
echo "status: $STATUS"
[ "$STATUS" = succeeded ]

URL=$(curl -sf "$ASSAY/v1/runs/$RUN/output" -H "Authorization: Bearer $KEY" | json url)
curl -sf -o evaluation.docx "$URL"
echo "saved evaluation.docx ($(wc -c < evaluation.docx) bytes)"
