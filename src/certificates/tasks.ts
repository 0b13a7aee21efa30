// Engine tasks of the certificates area: render the certificate PDF (signed statement in, unsealed PDF
// body out; the daemon seals it) and read the parts of a certificate file someone sent in (the public
// verify route), both inside an engine slot with its watchdog.
import { extractCertificateParts, type CertificateParts } from './extract.ts';
import { renderCertificatePdf, type RenderCertificateInput } from './render.ts';

export const certificateTasks = {
  'certificates.render': (input: RenderCertificateInput): { pdf: Uint8Array } => ({
    pdf: renderCertificatePdf(input),
  }),
  'certificates.inspect': (input: { bytes: Uint8Array }): CertificateParts =>
    extractCertificateParts(input.bytes),
};
