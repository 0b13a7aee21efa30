// Engine tasks of the documents area (inspect on upload, classify, search, preview, crop).
export const documentTasks = {};
