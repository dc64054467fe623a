// Stands in for a layer whose sources are not written yet.
