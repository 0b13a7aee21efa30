// Engine tasks of the certificates area (render the certificate PDF).
export const certificateTasks = {};
