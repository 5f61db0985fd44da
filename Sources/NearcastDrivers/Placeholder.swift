public enum NearcastDriversPlaceholder {}
