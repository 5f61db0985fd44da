public enum NearcastAppPlaceholder {}
