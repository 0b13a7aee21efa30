// Engine tasks of the corrections area (propose, apply, verify).
export const correctionTasks = {};
