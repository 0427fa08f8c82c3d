/// PixelArt: nearest-neighbour pixel scaling with PNG input and output.
